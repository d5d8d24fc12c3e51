"""Presigned links never reach the model: keys s3_*_url removed, signed tokens replaced in place."""

import json

from hydrata_mcp.redaction import MARKER, redact, redact_result

S3 = ("https://bucket.s3.amazonaws.com/runs/1/max_depth.tif?X-Amz-Algorithm=AWS4-HMAC-SHA256&"
      "X-Amz-Credential=AKIA%2F&X-Amz-Signature=abc123")
LOCAL = "http://127.0.0.1:8000/storage/download/runs/1/run.log?expires=1&X-Hydrata-Signature=zzz"
TOKEN = "https://bucket.s3.amazonaws.com/k?X-Amz-Security-Token=tok&X-Amz-Date=1"


def test_keys_named_s3_url_are_removed_at_any_depth():
    value = {"s3_max_depth_url": S3, "layers": [{"s3_log_url": LOCAL, "name": "max_depth"}], "S3_Preview_URL": 1}

    assert redact(value) == {"layers": [{"name": "max_depth"}]}


def test_a_signed_link_inside_a_log_line_is_replaced_and_the_rest_survives():
    line = f"12:00 wrote {LOCAL} (3 MB) and {S3}; token {TOKEN} done"

    cleaned = redact(line)

    assert cleaned == f"12:00 wrote {MARKER} (3 MB) and {MARKER}; token {MARKER} done"


def test_unsigned_links_and_other_values_are_left_alone():
    value = {"ui_url": "http://127.0.0.1:8000/catalogue/#/map/3?panel=run&run=1", "count": 3, "ok": True}

    assert redact(value) == value


def test_the_json_text_copy_of_a_result_loses_the_keys_too():
    structured = {"id": 1, "s3_max_depth_url": S3, "log_tail": [f"see {LOCAL}"]}
    result = {"content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured,
              "isError": False}

    cleaned = redact_result(result)

    text = cleaned["content"][0]["text"]
    assert "s3_max_depth_url" not in text and "abc123" not in text and "zzz" not in text
    assert cleaned["structuredContent"] == {"id": 1, "log_tail": [f"see {MARKER}"]}
    assert json.loads(text)["log_tail"] == [f"see {MARKER}"]

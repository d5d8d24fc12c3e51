"""Presigned links never reach the model: keys s3_*_url removed, signed tokens replaced in place."""

import json
import time

from hydrata_mcp.redaction import MARKER, redact, redact_result

S3 = (
    "https://bucket.s3.amazonaws.com/runs/1/max_depth.tif?X-Amz-Algorithm=AWS4-HMAC-SHA256&"
    "X-Amz-Credential=AKIA%2F&X-Amz-Signature=abc123"
)
LOCAL = "http://127.0.0.1:8000/storage/download/runs/1/run.log?expires=1&X-Hydrata-Signature=zzz"
TOKEN = "https://bucket.s3.amazonaws.com/k?X-Amz-Security-Token=tok&X-Amz-Date=1"
MEGABYTE = 1_000_000


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
    result = {
        "content": [{"type": "text", "text": json.dumps(structured)}],
        "structuredContent": structured,
        "isError": False,
    }

    cleaned = redact_result(result)

    text = cleaned["content"][0]["text"]
    assert "s3_max_depth_url" not in text and "abc123" not in text and "zzz" not in text
    assert cleaned["structuredContent"] == {"id": 1, "log_tail": [f"see {MARKER}"]}
    assert json.loads(text)["log_tail"] == [f"see {MARKER}"]


def test_a_token_holding_several_signatures_is_one_marker_and_tokens_end_at_whitespace_quotes_and_brackets():
    line = f"{S3}&x-amz-security-token=t,{LOCAL} ({TOKEN}) '{S3}'<{LOCAL}>"

    assert redact(line) == f"{MARKER} {MARKER}) '{MARKER}'<{MARKER}>"


def test_the_signature_parameters_are_matched_without_regard_to_case():
    assert redact("get https://h/k?x-AMZ-signature=1 now") == f"get {MARKER} now"


def test_a_megabyte_without_whitespace_is_redacted_in_well_under_a_second():
    plain = "A" * MEGABYTE
    one_token = ",".join([S3] * (MEGABYTE // len(S3)))
    many_links = " ".join([S3] * (MEGABYTE // len(S3)))

    started = time.perf_counter()
    cleaned = [redact(plain), redact(one_token), redact(many_links)]
    elapsed = time.perf_counter() - started

    assert cleaned == [plain, MARKER, " ".join([MARKER] * (MEGABYTE // len(S3)))]
    assert elapsed < 1, elapsed  # the quadratic regex took hours on the first


def test_a_quoted_signed_link_in_a_json_text_copy_leaves_it_valid_json():
    structured = {"description": f'from "{S3}" and "{LOCAL}".', "s3_log_url": LOCAL}
    result = {"content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured}

    cleaned = redact_result(result)

    assert json.loads(cleaned["content"][0]["text"]) == {"description": f'from "{MARKER}" and "{MARKER}".'}
    assert cleaned["structuredContent"] == json.loads(cleaned["content"][0]["text"])


def test_a_text_block_that_is_not_json_is_redacted_as_text():
    result = {"content": [{"type": "text", "text": f"Error executing tool: see {LOCAL}."}]}

    assert redact_result(result)["content"][0]["text"] == f"Error executing tool: see {MARKER}."


def test_image_audio_and_blob_data_are_passed_on_unread_and_the_rest_of_their_block_is_redacted():
    # URL-safe base64 can spell a signature parameter by chance; rewriting it would only break the image.
    data = "iVBORw0KGgo" + "A" * 1000 + "X-Amz-Signature" + "A" * 1000
    result = {
        "content": [
            {"type": "image", "data": data, "mimeType": "image/png", "_meta": {"s3_source_url": S3}},
            {"type": "audio", "data": data, "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": LOCAL, "blob": data, "mimeType": "image/png"}},
            {"type": "resource", "resource": {"uri": "file:///log", "text": f"wrote {S3}"}},
        ]
    }

    blocks = redact_result(result)["content"]

    assert [block.get("data") or block["resource"].get("blob") for block in blocks[:3]] == [data] * 3
    assert blocks[0]["_meta"] == {} and blocks[2]["resource"]["uri"] == MARKER
    assert blocks[3]["resource"]["text"] == f"wrote {MARKER}"

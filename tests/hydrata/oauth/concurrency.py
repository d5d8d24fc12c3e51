"""One refresh token presented by many requests at once, over real sockets, and what they were answered."""

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.model_setup import SHARED_TLS


def refresh_form(client_id: str, refresh_token: str) -> dict[str, str]:
    return {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}


def refresh_all_at_once(site: str, form: dict[str, str], *, requests: int) -> list[httpx.Response]:
    """`requests` identical refreshes, each on its own connection, released together."""
    start = threading.Barrier(requests)
    limits = httpx.Limits(max_connections=requests, max_keepalive_connections=requests)
    with httpx.Client(base_url=site, timeout=30, limits=limits, verify=SHARED_TLS) as http:

        def one(_: int) -> httpx.Response:
            start.wait()
            return http.post("/oauth/token/", data=form)

        with ThreadPoolExecutor(requests) as pool:
            return list(pool.map(one, range(requests)))


def answers(responses: list[httpx.Response]) -> list[tuple[int, str]]:
    """Each answer as (status, error), sorted; an answer that is not JSON says so."""
    found = []
    for response in responses:
        json_answer = response.headers.get("content-type", "").startswith("application/json")
        error = response.json().get("error", "") if json_answer else f"not JSON: {response.text[:80]!r}"
        found.append((response.status_code, error))
    return sorted(found)


def one_winner_then_revoked(requests: int) -> list[tuple[int, str]]:
    """What a round must come to: one rotation and every other request refused as a replay; then the winner's
    new refresh token refused too, as the replays revoked the connection."""
    return [(200, ""), *[(400, "invalid_grant")] * (requests - 1), (-1, "then"), (400, "invalid_grant")]


def race_round(site: str, client_id: str, refresh_token: str, *, requests: int) -> list[tuple[int, str]]:
    """The answers to the race, then the answer to refreshing with the winner's new refresh token(s)."""
    responses = refresh_all_at_once(site, refresh_form(client_id, refresh_token), requests=requests)
    won = [response.json()["refresh_token"] for response in responses if response.status_code == 200]
    after = [httpx.post(f"{site}/oauth/token/", data=refresh_form(client_id, token)) for token in won]
    return [*answers(responses), (-1, "then"), *answers(after)]

"""Pages of a tool's result carry page numbers, never the platform's links: followed to the end over /mcp/."""

import json

import pytest

from tests.factories import make_grant, make_project
from tests.mcp_client import mcp_client, run

pytestmark = pytest.mark.django_db(transaction=True)
PROJECT_COUNT = 5
PAGE_SIZE = 2


def pages_of_projects(url: str, key: str) -> list:
    """Every page of list_projects, following next_page from page 1 until it is null."""

    async def session():
        async with mcp_client(url, key) as client:
            pages, page = [], 1
            while page is not None and len(pages) <= PROJECT_COUNT:
                pages.append(await client.call_tool("list_projects", {"page": page, "page_size": PAGE_SIZE}))
                page = pages[-1].structured_content["next_page"]
            return pages

    return run(session)


def test_next_and_previous_page_walk_every_page_and_no_link_reaches_the_model(live_asgi):
    grant, key = make_grant(level="read")
    for index in range(PROJECT_COUNT):
        make_project(grant.user, name=f"Creek {index}")

    pages = pages_of_projects(live_asgi.url, key)

    content = [page.structured_content for page in pages]
    assert [(c["previous_page"], c["next_page"]) for c in content] == [(None, 2), (1, 3), (2, None)]
    assert [len(c["results"]) for c in content] == [2, 2, 1] and {c["count"] for c in content} == {PROJECT_COUNT}
    names = [project["name"] for c in content for project in c["results"]]
    assert sorted(names) == [f"Creek {index}" for index in range(PROJECT_COUNT)]
    for page in pages:
        dumped = json.dumps(page.structured_content) + page.content[0].text
        assert "/api/v2/" not in dumped and "page_size=" not in dumped

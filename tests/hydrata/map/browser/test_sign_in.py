"""A new user, as the README tells them: `make run` prints the demo password; with it they sign in at the login
page, in a browser, and reach /agents/ and /catalogue/."""

import re
from io import StringIO

from django.core.management import call_command

from tests.browser import off_the_browser_thread


def printed_demo_password() -> str:
    out = StringIO()
    call_command("setup_demo", stdout=out)
    return re.search(r"password:\s+(\S+)", out.getvalue()).group(1)


def test_the_demo_user_signs_in_with_the_printed_password_and_reaches_agents_and_catalogue(tab, site):
    password = off_the_browser_thread(printed_demo_password)

    tab.page.goto(f"{site.url}/agents/")
    tab.page.wait_for_url(re.compile(r"/accounts/login/\?next=/agents/"))
    tab.page.fill("input[name=username]", "demo")
    tab.page.fill("input[name=password]", password)
    tab.page.click("button[type=submit]")
    tab.page.wait_for_url(f"{site.url}/agents/")
    agents = tab.page.inner_text("main")
    tab.screenshot("agents-page")
    tab.page.click("header a:has-text('Catalogue')")
    tab.page.wait_for_url(f"{site.url}/catalogue/")

    assert "Agent access" in agents and "demo draft key" in agents and "$0.00" in agents
    assert "Your projects" in tab.page.inner_text("main")
    assert tab.console_errors == [] and tab.foreign_requests() == []

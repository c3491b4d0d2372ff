#!/usr/bin/env python3
"""Drives Debian's chromium (chromedriver, Selenium) through the dashboard while a job fails
and recovers: dashboard_browser_test.cpp starts the daemon and the held job, this script opens
the link, goes to the job's page, prints READY (the test then releases the job) and waits on
that page, never reloading it, until it shows the failure, its diagnosis and the recovery.
Then it checks the page at 375 px wide, keeps screenshots and validates the HTML with tidy.

Exit 0 and a JSON line of what it saw; exit 1 with the reason on stderr.
"""
import argparse
import json
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def fail(message):
    print(f"watch_dashboard: {message}", file=sys.stderr)
    sys.exit(1)


def wait_for(what, check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except WebDriverException:
            pass
        time.sleep(0.25)
    fail(f"timed out after {timeout} s waiting for {what}")


def text_of(driver, css):
    return "\n".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, css))


def validate_html(link, out_dir):
    """The page as served, through tidy: no error and no warning."""
    base, token = link.split("/?token=")
    request = urllib.request.Request(base + "/", headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as answer:
        page = answer.read()
    path = f"{out_dir}/dashboard.html"
    with open(path, "wb") as f:
        f.write(page)
    result = subprocess.run(["tidy", "-q", "-e", "--gnu-emacs", "yes", path],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        fail(f"tidy found problems in the page (exit {result.returncode}):\n{result.stderr}")
    return "tidy: no warnings or errors"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--link", required=True, help="what `supervisor dashboard` printed")
    parser.add_argument("--job", required=True)
    parser.add_argument("--out", required=True, help="folder for the screenshots and page")
    parser.add_argument("--timeout", type=float, default=180)
    args = parser.parse_args()

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(args.link)
        wait_for("the job in the list", lambda: driver.find_elements(
            By.CSS_SELECTOR, f'#jobs tr[data-job="{args.job}"] a'), 60)[0].click()
        # A mark that a reload would wipe: the page must update itself.
        driver.execute_script("window.__sameDocument = 'yes';")
        wait_for("the job page", lambda: "Attempt" in text_of(driver, "#job-facts"), 30)
        print("READY", flush=True)

        wait_for("the diagnosis on the job page",
                 lambda: driver.find_elements(By.CSS_SELECTOR, '#timeline li[data-kind="diagnosis"]'),
                 args.timeout)
        wait_for("the second attempt", lambda: "2 of" in text_of(driver, "#job-facts"), args.timeout)
        wait_for("the recovery in the timeline",
                 lambda: "recovering -> enabled" in text_of(driver, "#timeline"), args.timeout)
        if driver.execute_script("return window.__sameDocument;") != "yes":
            fail("the page was reloaded to show the failure")
        seen = {
            "facts": text_of(driver, "#job-facts"),
            "attempts": text_of(driver, "#attempts"),
            "diagnosis": text_of(driver, '#timeline li[data-kind="diagnosis"]'),
            "timeline": text_of(driver, "#timeline"),
            "daemon": text_of(driver, "#daemon"),
        }
        driver.save_screenshot(f"{args.out}/job-1280.png")

        # A phone: 375 px wide, nothing wider than the screen but the table's own scroller.
        driver.set_window_size(375, 812)
        time.sleep(0.5)
        width = driver.execute_script("return document.documentElement.scrollWidth;")
        inner = driver.execute_script("return window.innerWidth;")
        if width > inner:
            fail(f"the job page is {width} px wide in a {inner} px window")
        driver.save_screenshot(f"{args.out}/job-375.png")
        driver.execute_script("location.hash = '';")
        # The job may have finished by now: a finished job is listed with "finished ... too".
        wait_for("the list at 375 px", lambda: driver.find_element(By.ID, "show-all").is_displayed(), 30)
        driver.find_element(By.ID, "show-all").click()
        wait_for("the list at 375 px", lambda: driver.find_elements(
            By.CSS_SELECTOR, f'#jobs tr[data-job="{args.job}"]'), 30)
        width = driver.execute_script("return document.documentElement.scrollWidth;")
        if width > inner:
            fail(f"the job list is {width} px wide in a {inner} px window")
        driver.save_screenshot(f"{args.out}/list-375.png")
        # The nodes page (the daemon runs as root here: an operator sees it).
        driver.execute_script("location.hash = '#nodes';")
        seen["nodes"] = wait_for("the nodes page", lambda: (
            lambda text: text if "suspect" in text.lower() else None)(
                text_of(driver, "#nodes-note")), 30)
        seen["html"] = validate_html(args.link, args.out)
        print(json.dumps(seen), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()

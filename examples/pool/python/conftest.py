# pytest-xdist against one `fakex serve --pool`: every xdist worker (gw0, gw1, ...) gets
# its own isolated exchange, named by its worker id, and each test starts from that
# exchange's seeded state.
#
#   npx fakex serve --pool --info-file fakex.json &      # waits for nothing: start it first
#   FAKEX_INFO=fakex.json pytest -n 8
#
# Needs `requests` (and pytest-xdist for -n). Without -n the id is "main".
import json
import os

import pytest
import requests


class Exchange:
    """The URLs of this worker's exchange and the info shared by all of them."""

    def __init__(self, info, worker):
        pool = info["pool"]
        self.id = worker
        self.base_url = pool["base_url_template"].replace("{id}", worker)
        self.rpc_url = pool["rpc_url_template"].replace("{id}", worker)
        self.control_url = pool["control_url_template"].replace("{id}", worker)
        self.origin = self.base_url[: -len("/api/v1")].rsplit("/", 1)[0]
        # Same seed and config on every id: the same contracts, accounts and keys.
        self.accounts = info["accounts"]
        self.contracts = info["contracts"]
        self.chain_id = info["chain_id"]

    def control(self, method, path, body=None):
        r = requests.request(method, f"{self.control_url}{path}", json=body, timeout=30)
        r.raise_for_status()
        return r.json()


@pytest.fixture(scope="session")
def fakex():
    with open(os.environ.get("FAKEX_INFO", "fakex.json")) as f:
        info = json.load(f)
    ex = Exchange(info, os.environ.get("PYTEST_XDIST_WORKER", "main"))
    yield ex
    # Give the instance back (its Anvil stops); the next run starts a fresh one.
    requests.delete(f"{ex.origin}/{ex.id}", timeout=30)


@pytest.fixture(autouse=True)
def clean_exchange(fakex):
    """Every test starts from the seeded state: chain, orders, keys, clock, faults."""
    fakex.control("POST", "/reset")

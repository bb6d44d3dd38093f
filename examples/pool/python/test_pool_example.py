# Tests that would trip over each other on one shared exchange: each mines blocks and
# funds a vault, and each expects to start exactly where the seed left the chain. With
# the pool they run on every xdist worker at once, each on its own exchange, and the
# reset fixture puts that exchange back between tests.
import pytest
import requests


def rpc(fakex, method, params=()):
    r = requests.post(fakex.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}, timeout=30)
    r.raise_for_status()
    return r.json()["result"]


def vault_holds(fakex, symbol):
    """ERC-20 balanceOf(vault): what every account has deposited in this token."""
    token = fakex.contracts["tokens"][symbol]
    data = "0x70a08231" + fakex.contracts["vault"][2:].lower().rjust(64, "0")
    return int(rpc(fakex, "eth_call", [{"to": token, "data": data}, "latest"]), 16)


@pytest.fixture(scope="session")
def seeded(fakex):
    """The chain right after the seed (the autouse reset has just run)."""
    fakex.control("POST", "/reset")
    return {"block": rpc(fakex, "eth_blockNumber"), "vault_eurc": vault_holds(fakex, "EURC")}


def test_markets_are_served(fakex):
    r = requests.get(f"{fakex.base_url}/markets", timeout=30)
    assert r.status_code == 200
    assert len(r.json()["markets"]) > 0
    assert requests.get(f"{fakex.base_url}/system/time", timeout=30).status_code == 200


@pytest.mark.parametrize("run", range(4))
def test_each_test_starts_from_the_seed(fakex, seeded, run):
    assert rpc(fakex, "eth_blockNumber") == seeded["block"]
    assert vault_holds(fakex, "EURC") == seeded["vault_eurc"]
    user = fakex.accounts[0]["address"]
    fakex.control("POST", "/fund", {"address": user, "token": "EURC", "amount": "1000000", "vault": True})
    fakex.control("POST", "/mine", {"blocks": 3})
    fakex.control("POST", "/clock/advance", {"seconds": 3600})
    assert vault_holds(fakex, "EURC") == seeded["vault_eurc"] + 1000000
    assert int(rpc(fakex, "eth_blockNumber"), 16) >= int(seeded["block"], 16) + 3

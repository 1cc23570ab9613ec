"""Python code that asks before it loads, asked about packages torch itself wrote.

tests/fixtures/torch/ holds packages Debian's torch 2.14.1 and 2.6.0 compiled, wrote and
loaded back, and facts.json what torch said of each (tests/fixtures/torch/make.sh). Here the
Python package must give the same answers over the library and over the daemon (the file
named under its model root): the model names, the AOTI metadata the runner reports, and
for every input shape torch's runner was given with its input checks on, `validate` says
valid exactly when the runner took it.
"""

import json
import os
import re

import pytest

import pt2scope
from conftest import FIXTURES

TORCH = os.path.join(FIXTURES, "torch")
FACTS = json.load(open(os.path.join(TORCH, "facts.json")))["packages"]


def checked(probes):
    """The runner's own input checks refused something (torch >= 2.8; 2.6 checks nothing)."""
    return any(not p["accepted"] and (p["error"].startswith("input_handles[") or "expected size" in p["error"])
               for p in probes)


LOADED = sorted(n for n, f in FACTS.items() if f.get("loaded"))
PROBED = [(n, m) for n in LOADED for m, r in sorted(FACTS[n]["loaded"]["runners"].items())
          if checked(r["probes"])]


@pytest.fixture(params=["library", "root"])
def api(request):
    """(api, ref): the module functions on the file, or a Client naming it under the root."""
    if request.param == "library":
        return pt2scope, lambda name: os.path.join(TORCH, name)
    client = pt2scope.Client(request.getfixturevalue("daemon"))
    return client, lambda name: client.root("torch/" + name)


def test_the_facts_are_there():
    assert len(LOADED) >= 10 and len(PROBED) >= 8


@pytest.mark.parametrize("name", LOADED)
def test_models_and_metadata_as_the_runner_says(api, name):
    fn, ref = api
    doc = fn.inspect(ref(name), node=False)
    runners = FACTS[name]["loaded"]["runners"]
    assert sorted(m["name"] for m in doc.models) == sorted(runners)
    for m in doc.models:
        assert m["aoti_metadata"] == runners[m["name"]]["metadata"]
        assert m["size"]["constants"] == len(runners[m["name"]]["constant_fqns"])


@pytest.mark.parametrize("name,model", PROBED)
def test_validate_takes_what_the_runner_took(api, name, model):
    fn, ref = api
    facts = FACTS[name]
    several = len(facts["models"]) > 1
    doc = fn.inspect(ref(name), node=False, model=model if several else None)
    names = [t["name"] for t in [m for m in doc.models if m["name"] == model][0]["inputs"]]
    for p in facts["loaded"]["runners"][model]["probes"]:
        result = fn.validate(ref(name), dict(zip(names, p["shapes"])), model=model if several else None)
        assert result.valid == p["accepted"], (p["case"], p["shapes"], p["error"], result.errors)
        if not p["accepted"]:
            assert result.errors, p["case"]


def test_a_custom_operator_is_a_runtime_requirement(api):
    fn, ref = api
    for name in sorted(n for n, f in FACTS.items() if "load_without_op" in f):
        op = re.search(r"Could not find schema for ([\w:.]+?)\.?(?: |$)", FACTS[name]["load_without_op"]["error"]).group(1)
        result = fn.check(ref(name), targets=["H100"], runtime="debian13")
        entry = [c for c in result.compatibility if c.kind == "runtime"][0]
        assert "custom_ops" in entry.raw["unverified"] and op in entry.reason, entry

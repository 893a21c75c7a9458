"""The resolver policy: while a config resolves under it, only resolvers that read the config itself run; a host
lookup (an environment variable, a decoded string, a resolver an application registered) keeps its own text."""

import os

from omegaconf import OmegaConf

from harness.composition.policy import HOST_RESOLVERS, resolution_policy


def test_a_host_lookup_keeps_its_text_and_a_pure_one_runs(monkeypatch):
    monkeypatch.setenv("SECRET_FOR_THE_TEST", "s3cr3t")
    config = OmegaConf.create({"token": "${oc.env:SECRET_FOR_THE_TEST}", "a": 1, "b": "${oc.select:a,2}", "c": "${oc.select:nope,3}"})
    with resolution_policy():
        assert OmegaConf.to_container(config, resolve=True) == {"token": "${oc.env:SECRET_FOR_THE_TEST}", "a": 1, "b": 1, "c": 3}
    assert config.token == "s3cr3t" == os.environ["SECRET_FOR_THE_TEST"]  # outside the policy, OmegaConf's own resolvers again


def test_a_resolver_an_application_registered_is_opaque_too():
    OmegaConf.register_new_resolver("unit44_side_effect", lambda x: f"ran {x}", replace=True)
    try:
        config = OmegaConf.create({"a": "${unit44_side_effect:now}"})
        with resolution_policy():
            assert config.a == "${unit44_side_effect:now}"
        assert config.a == "ran now"
    finally:
        OmegaConf.clear_resolver("unit44_side_effect")


def test_every_host_lookup_keeps_its_own_text_registered_or_not():
    written = {name.replace(".", "_"): "${" + name + ":HOME,x}" for name in HOST_RESOLVERS}
    config = OmegaConf.create(written)
    with resolution_policy():
        assert OmegaConf.to_container(config, resolve=True) == written

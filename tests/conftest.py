"""Shared fixtures: a clean configuration per test, a migrated database, a running cloud."""

from __future__ import annotations

import pytest
from keystoneauth1 import loading as ks_loading

from novalite.conf import CONF
from novalite.db import session
from novalite.rpc.transport import reset_transports
from novalite.scheduler.client import report


@pytest.fixture
def conf(tmp_path):
    """The global CONF, parsed with no files, with state under a fresh temp directory."""
    CONF([], project="novalite", default_config_files=[])
    CONF.set_override("state_path", str(tmp_path))
    # existing tests name the caller with noauth2 tokens; identity's tests opt into keystone
    CONF.set_override("auth_strategy", "noauth2", group="api")
    yield CONF
    report.reset()
    reset_transports()
    session.dispose()
    CONF.reset()
    # a cloud that checks tokens loads the password plugin on [placement], which registers
    # its options there (auth_url required); left behind, the next test's CONF() fails
    CONF.unregister_opts(ks_loading.get_auth_plugin_conf_options("password"),
                         group="placement")


@pytest.fixture
def db(conf):
    """A migrated SQLite database under the test's state directory."""
    from novalite.db import migration

    migration.db_sync()
    return session.get_engine()

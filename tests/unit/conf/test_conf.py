import subprocess
import sys

from novalite.compute import capacity
from novalite.conf import opts


def test_defaults_give_the_embedded_setup(conf):
    assert conf.transport_url == "inprocess://"
    assert conf.database.connection is None
    assert conf.scheduler.max_attempts == 3
    assert conf.filter_scheduler.host_subset_size == 1
    assert conf.fake_driver.hosts == 4
    assert conf.api.auth_strategy == "noauth2"


def test_allocation_ratios_fall_back_to_initial_ones_as_nova(conf):
    assert capacity.allocation_ratios() == (4.0, 1.0, 1.0)
    conf.set_override("cpu_allocation_ratio", 16.0)
    assert capacity.allocation_ratios()[0] == 16.0


def test_a_nova_conf_fragment_means_the_same(conf, tmp_path):
    path = tmp_path / "nova.conf"
    path.write_text(
        "[DEFAULT]\ntransport_url = rabbit://guest:guest@127.0.0.1:5672/\n"
        "cpu_allocation_ratio = 8.0\nreserved_host_memory_mb = 1024\n"
        "[database]\nconnection = postgresql+psycopg://postgres@127.0.0.1/nova\n"
        "[scheduler]\nmax_attempts = 5\n[filter_scheduler]\nhost_subset_size = 3\n")
    conf(["--config-file", str(path)], project="novalite", default_config_files=[])
    assert conf.transport_url.startswith("rabbit://")
    assert conf.cpu_allocation_ratio == 8.0
    assert conf.reserved_host_memory_mb == 1024
    assert conf.database.connection.startswith("postgresql+psycopg://")
    assert conf.scheduler.max_attempts == 5
    assert conf.filter_scheduler.host_subset_size == 3


def test_every_group_is_listed_for_the_sample():
    groups = {str(group) for group, _ in opts.list_opts()}
    assert {"DEFAULT", "database", "scheduler", "filter_scheduler", "api",
            "fake_driver", "upgrade_levels"} <= groups


def test_config_sample_prints_documented_options():
    out = subprocess.run([sys.executable, "-m", "novalite.cmd.manage", "config", "sample"],
                         capture_output=True, text=True, check=True).stdout
    for needle in ("[DEFAULT]", "#transport_url = inprocess://", "[filter_scheduler]",
                   "#host_subset_size = 1", "[database]", "#max_attempts = 3"):
        assert needle in out

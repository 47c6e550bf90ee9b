"""[oslo_policy]: oslo.policy's own options (policy_file, policy_dirs, ...), registered
here so an operator's overrides file is configured as in any OpenStack service."""

from oslo_config import cfg
from oslo_policy import opts as policy_opts


def register_opts(conf: cfg.ConfigOpts) -> None:
    policy_opts.set_defaults(conf)


def list_opts() -> dict:
    return dict(policy_opts.list_opts())

"""[glance] options of the image client computes download images with, keystoneauth's,
under Nova's group name. As with [placement], the all-in-one points it at its own HTTP
server when neither auth nor endpoint_override is set."""

from oslo_config import cfg

from novalite.conf import service_client

GROUP = "glance"
glance_group = cfg.OptGroup(GROUP, title="Image service client options")
ADAPTER_OPTS = service_client.adapter_opts("image")


def register_opts(conf: cfg.ConfigOpts) -> None:
    service_client.register(conf, glance_group, ADAPTER_OPTS)


def list_opts() -> dict:
    return {glance_group: service_client.listed(ADAPTER_OPTS)}

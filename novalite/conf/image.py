"""Image service options, by Glance's names: [DEFAULT] for the API's limits and hashing,
[glance_store] for where the file store keeps image data."""

from oslo_config import cfg

glance_store_group = cfg.OptGroup("glance_store", title="Image data store options")

default_opts = [
    cfg.IntOpt("image_size_cap", default=1099511627776, min=1,
               help="Largest image, in bytes, a user may upload (Glance's default: 1 TiB)."),
    cfg.StrOpt("hashing_algorithm", default="sha512",
               help="hashlib algorithm of an image's os_hash_value (Glance's multihash)."),
    cfg.IntOpt("limit_param_default", default=25, min=1,
               help="Images a list returns when the request gives no limit."),
    cfg.IntOpt("api_limit_max", default=1000, min=1,
               help="Most images a list returns, whatever limit the request gives."),
]

glance_store_opts = [
    cfg.StrOpt("filesystem_store_datadir",
               help="Directory of the image file store. Default: $state_path/images."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)
    conf.register_group(glance_store_group)
    conf.register_opts(glance_store_opts, group=glance_store_group)


def list_opts() -> dict:
    return {"DEFAULT": default_opts, glance_store_group: glance_store_opts}

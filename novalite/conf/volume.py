"""Volume service options, in [DEFAULT] by Cinder's names where Cinder has the option;
`volume_backend_capacity_gb` is novalite's: Cinder's drivers ask their storage for its
size, and a file backend's directory shares its file system with everything else."""

from oslo_config import cfg

default_opts = [
    cfg.StrOpt("volumes_dir",
               help="Directory of the file backend's volumes. Default: $state_path/volumes."),
    cfg.StrOpt("volume_backend_name", default="file",
               help="The backend's name, in a volume's host (host@backend#pool)."),
    cfg.IntOpt("volume_backend_capacity_gb", default=100, min=0,
               help="Gigabytes the file backend offers to volumes, reported as its "
               "total capacity; a volume larger than what is left is refused."),
    cfg.IntOpt("reserved_percentage", default=0, min=0, max=100,
               help="Percentage of the backend's capacity kept free of volumes."),
    cfg.StrOpt("storage_availability_zone", default="nova",
               help="Availability zone of this volume service, and of a volume created "
               "without one ([DEFAULT] default_availability_zone is the computes')."),
    cfg.BoolOpt("enable_force_upload", default=False,
                help="Whether os-volume_upload_image's `force` may upload a volume that "
                "is in use (what the guest has not flushed is not in the image)."),
    cfg.StrOpt("default_volume_type", default="__DEFAULT__",
               help="Volume type of a volume created without one."),
    cfg.IntOpt("quota_volumes", default=10, min=-1,
               help="Volumes a project may have; -1: unlimited."),
    cfg.IntOpt("quota_snapshots", default=10, min=-1,
               help="Volume snapshots a project may have; -1: unlimited."),
    cfg.IntOpt("quota_gigabytes", default=1000, min=-1,
               help="Gigabytes of volumes and snapshots a project may have; -1: unlimited."),
    cfg.IntOpt("osapi_max_limit", default=1000, min=1,
               help="Most items a list returns, whatever limit the request gives."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)


def list_opts() -> dict:
    return {"DEFAULT": default_opts}

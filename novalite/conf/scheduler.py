"""[scheduler] and [filter_scheduler] options, with Nova's names and defaults."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup("scheduler", title="Scheduler options")
filter_scheduler_group = cfg.OptGroup("filter_scheduler", title="Filter scheduler options")

scheduler_opts = [
    cfg.StrOpt(
        "driver",
        default="filter_scheduler",
        deprecated_name="scheduler_driver",
        deprecated_group="DEFAULT",
        help="Scheduler driver, by entry-point name in 'novalite.scheduler.driver': "
        "filter_scheduler (filters and weighers) or chance_scheduler (a random up host). "
        "Nova's old class paths for these two are accepted.",
    ),
    cfg.IntOpt(
        "max_attempts",
        default=3,
        min=1,
        help="Attempts to build a server: the chosen host plus up to max_attempts - 1 "
        "alternates to reschedule onto.",
    ),
    cfg.IntOpt(
        "max_placement_results",
        default=1000,
        min=1,
        deprecated_name="scheduler_max_placement_results",
        deprecated_group="DEFAULT",
        help="Most allocation candidates asked of placement per request (its `limit`); "
        "only these hosts are filtered and weighed.",
    ),
    cfg.IntOpt(
        "periodic_task_interval",
        default=60,
        deprecated_name="scheduler_driver_task_period",
        deprecated_group="DEFAULT",
        help="Seconds between the scheduler's periodic tasks: a refresh of its cached "
        "host states, also run as it starts, so that a request reads only what changed "
        "since (a first request in a cloud of 10,000 hosts read all of them). 0 uses "
        "the default interval (60 seconds); a negative value disables periodic tasks.",
    ),
    cfg.BoolOpt(
        "query_placement_for_availability_zone",
        default=True,
        help="Ask placement only for hosts in the aggregates of the requested "
        "availability zone (the zone's aggregates are mirrored to placement).",
    ),
    cfg.BoolOpt(
        "query_placement_for_image_type_support",
        default=False,
        help="Ask placement only for hosts that support the image's disk format "
        "(the COMPUTE_IMAGE_TYPE_* trait).",
    ),
]

# Nova's defaults: placement already answers for RAM, vCPU, disk and the requested zone
# (the Ram/Core/Disk and AvailabilityZone filters remain available).
DEFAULT_FILTERS = ["ComputeFilter", "ComputeCapabilitiesFilter", "ImagePropertiesFilter",
                   "ServerGroupAntiAffinityFilter", "ServerGroupAffinityFilter"]

filter_scheduler_opts = [
    cfg.IntOpt(
        "host_subset_size",
        default=1,
        min=1,
        deprecated_name="scheduler_host_subset_size",
        deprecated_group="DEFAULT",
        help="Choose at random among this many of the best-weighed hosts.",
    ),
    cfg.MultiStrOpt(
        "available_filters",
        default=["novalite.scheduler.filters.all_filters"],
        deprecated_name="scheduler_available_filters",
        deprecated_group="DEFAULT",
        help="Filter classes the scheduler may use, by dotted path to a class or to a "
        "function returning classes; may be repeated. Nova's "
        "'nova.scheduler.filters.all_filters' means the built-in set.",
    ),
    cfg.ListOpt(
        "enabled_filters",
        default=DEFAULT_FILTERS,
        deprecated_name="scheduler_default_filters",
        deprecated_group="DEFAULT",
        help="Filters to run, by class name, in order; each must be available.",
    ),
    cfg.ListOpt(
        "weight_classes",
        default=["novalite.scheduler.weighers.all_weighers"],
        deprecated_name="scheduler_weight_classes",
        deprecated_group="DEFAULT",
        help="Weighers to use, by dotted path to a class or to a function returning "
        "classes. Nova's 'nova.scheduler.weights.all_weighers' means the built-in set.",
    ),
    cfg.StrOpt(
        "image_properties_default_architecture",
        help="Architecture assumed for images without hw_architecture (e.g. x86_64); "
        "unset: such images may go to any architecture.",
    ),
    cfg.FloatOpt("ram_weight_multiplier", default=1.0,
                 help="Multiplier of free RAM; negative values stack instead of spread."),
    cfg.FloatOpt("cpu_weight_multiplier", default=1.0,
                 help="Multiplier of free vCPUs; negative values stack instead of spread."),
    cfg.FloatOpt("disk_weight_multiplier", default=1.0,
                 help="Multiplier of free disk; negative values stack instead of spread."),
    cfg.FloatOpt("io_ops_weight_multiplier", default=-1.0,
                 help="Multiplier of a host's I/O-heavy instances; negative avoids busy hosts."),
    cfg.FloatOpt("num_instances_weight_multiplier", default=0.0,
                 help="Multiplier of a host's instance count; negative spreads, positive packs."),
    cfg.FloatOpt("hypervisor_version_weight_multiplier", default=1.0,
                 help="Multiplier of the hypervisor version; positive prefers newer hosts."),
    cfg.FloatOpt("soft_affinity_weight_multiplier", default=1.0, min=0.0,
                 help="Weight of soft-affinity server groups."),
    cfg.FloatOpt("soft_anti_affinity_weight_multiplier", default=1.0, min=0.0,
                 help="Weight of soft-anti-affinity server groups."),
    cfg.BoolOpt("track_instance_changes", default=True,
                help="Computes tell the schedulers which instances they hold (update, delete "
                "and a periodic sync), so server-group and same/different-host filters need "
                "no database query per request. Off: the scheduler reads the database."),
    cfg.IntOpt("max_instances_per_host", default=50, min=1,
               help="NumInstancesFilter: most instances a host may run."),
    cfg.IntOpt("max_io_ops_per_host", default=8, min=0,
               help="IoOpsFilter: most I/O-heavy instances (building, migrating, ...) a "
               "host may have."),
    cfg.FloatOpt("pci_weight_multiplier", default=1.0, min=0.0,
                 help="PCIWeigher: keeps hosts with free PCI devices for the requests that "
                 "need them (hosts with fewer free devices weigh more)."),
    cfg.FloatOpt("build_failure_weight_multiplier", default=1000000.0,
                 help="BuildFailureWeigher: weight taken off per recent failed build a host "
                 "reports ([compute] consecutive_build_service_disable_threshold must be "
                 "nonzero on the computes); 0 disables it."),
    cfg.FloatOpt("cross_cell_move_weight_multiplier", default=1000000.0,
                 help="CrossCellWeigher: preference for hosts in the instance's own cell "
                 "during a cross-cell move; negative prefers other cells."),
    cfg.FloatOpt("image_props_weight_multiplier", default=0.0,
                 help="ImagePropertiesWeigher: positive packs instances whose images share "
                 "properties with the requested image, negative spreads them; 0 (the "
                 "default) disables the weigher."),
    cfg.ListOpt("image_props_weight_setting", default=[],
                help="ImagePropertiesWeigher: 'name=ratio' pairs weighing each image "
                "property; empty weighs every property 1.0, a property not listed (or at "
                "0) is not weighed."),
    cfg.ListOpt("isolated_images", default=[],
                help="IsolatedHostsFilter: image ids that may only run on isolated_hosts."),
    cfg.ListOpt("isolated_hosts", default=[],
                help="IsolatedHostsFilter: hosts that run the isolated_images."),
    cfg.BoolOpt("restrict_isolated_hosts_to_isolated_images", default=True,
                help="IsolatedHostsFilter: isolated hosts take only isolated images (an "
                "isolated image always goes to an isolated host)."),
]

# [metrics]: MetricsFilter and MetricsWeigher, with Nova's names and defaults.
metrics_group = cfg.OptGroup("metrics", title="Host metrics weighing")

metrics_opts = [
    cfg.FloatOpt("weight_multiplier", default=1.0,
                 help="MetricsWeigher multiplier (aggregate metadata key "
                 "metrics_weight_multiplier overrides it per host)."),
    cfg.ListOpt("weight_setting", default=[],
                help="'name=ratio' pairs: a host weighs the sum of metric value x ratio; "
                "MetricsFilter keeps only hosts reporting every metric named here."),
    cfg.BoolOpt("required", default=True,
                help="A host lacking a metric of weight_setting fails the request "
                "(ComputeHostMetricNotFound); False: it weighs weight_of_unavailable."),
    cfg.FloatOpt("weight_of_unavailable", default=-10000.0,
                 help="Weight of a host lacking a metric, when required is False."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)
    conf.register_group(metrics_group)
    conf.register_opts(metrics_opts, group=metrics_group)


def list_opts() -> dict:
    return {scheduler_group: scheduler_opts, filter_scheduler_group: filter_scheduler_opts,
            metrics_group: metrics_opts}

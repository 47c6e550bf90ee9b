"""[scheduler] and [filter_scheduler] options, with Nova's names and defaults."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup("scheduler", title="Scheduler options")
filter_scheduler_group = cfg.OptGroup("filter_scheduler", title="Filter scheduler options")

scheduler_opts = [
    cfg.StrOpt(
        "driver",
        default="fit_scheduler",
        help="Scheduler driver, by entry-point name in 'novalite.scheduler.driver'.",
    ),
    cfg.IntOpt(
        "max_attempts",
        default=3,
        min=1,
        help="Attempts to build a server: the chosen host plus up to max_attempts - 1 "
        "alternates to reschedule onto.",
    ),
]

filter_scheduler_opts = [
    cfg.IntOpt(
        "host_subset_size",
        default=1,
        min=1,
        help="Choose at random among this many of the best-weighed hosts.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts() -> dict:
    return {scheduler_group: scheduler_opts, filter_scheduler_group: filter_scheduler_opts}

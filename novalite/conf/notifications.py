"""[notifications] and [oslo_messaging_notifications]: Nova's versioned notifications, with
Nova's and oslo.messaging's option names and defaults, so a nova.conf that turns them on
turns them on here.

As in Nova, nothing is sent unless both gates are open: a driver in
`[oslo_messaging_notifications] driver` (empty by default, as in oslo.messaging) and a
`[notifications] notification_format` that includes the versioned format (Nova's default
is `unversioned`). novalite has no legacy (unversioned) notifications: with `unversioned`
it sends nothing and says so once in the log of each service that starts with a driver set.
"""

from oslo_config import cfg

notifications_group = cfg.OptGroup(
    "notifications", title="Notifications",
    help="Nova's versioned notifications: what the services tell the outside world "
    "(instance.create.end, service.update, ...) on the message bus.")

notifications_opts = [
    cfg.StrOpt(
        "notify_on_state_change",
        choices=[
            (None, "no instance.update notifications"),
            ("vm_state", "instance.update when an instance's vm_state changes"),
            ("vm_and_task_state", "instance.update when its vm_state or task_state "
             "changes"),
        ],
        help="Send instance.update notifications on instance state changes, as Nova.",
    ),
    cfg.StrOpt(
        "default_level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"),
        help="The priority of notifications that have no priority of their own "
        "(every one but the .error and compute.exception ones, which are ERROR).",
    ),
    cfg.StrOpt(
        "notification_format",
        default="unversioned",
        choices=[
            ("both", "legacy and versioned notifications; novalite sends the versioned "
             "ones"),
            ("versioned", "versioned notifications only"),
            ("unversioned", "legacy notifications only, which novalite does not have: "
             "nothing is sent (logged at start)"),
        ],
        help="Which notification format to emit. Nova's default, 'unversioned', sends "
        "nothing here: set 'versioned' (or 'both') to have novalite's services send "
        "Nova's versioned notifications.",
    ),
    cfg.ListOpt(
        "versioned_notifications_topics",
        default=["versioned_notifications"],
        help="Topics of the versioned notifications: each notification goes to every "
        "topic, with the routing key '<topic>.<priority>' (versioned_notifications.info).",
    ),
]

messaging_group = cfg.OptGroup("oslo_messaging_notifications",
                               title="oslo.messaging notifications")

messaging_opts = [
    cfg.MultiStrOpt(
        "driver",
        default=[],
        help="How notifications are sent, as in oslo.messaging: 'messagingv2' (the "
        "versioned envelope on the bus, what Nova's consumers read), 'messaging' (the "
        "bare message on the bus), 'log' (a log line per notification), 'noop'. Several "
        "may be given; none (the default) sends no notification.",
    ),
    cfg.StrOpt(
        "transport_url",
        secret=True,
        help="The bus notifications go to; unset, the RPC one ([DEFAULT] transport_url).",
    ),
    cfg.ListOpt(
        "topics",
        default=["notifications"],
        help="oslo.messaging's topics of the legacy (unversioned) notifications, which "
        "novalite does not send; the versioned ones go to [notifications] "
        "versioned_notifications_topics, as in Nova. Accepted so a nova.conf setting it "
        "reads the same.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(notifications_group)
    conf.register_opts(notifications_opts, group=notifications_group)
    conf.register_group(messaging_group)
    conf.register_opts(messaging_opts, group=messaging_group)


def list_opts() -> dict:
    return {notifications_group: notifications_opts, messaging_group: messaging_opts}

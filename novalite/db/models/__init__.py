"""SQLAlchemy models. Schema changes happen only through migrations (db/migrations).

This module holds the compute tables; each other service keeps its tables in a module of
this package (imported at the bottom, so one metadata describes the whole database).

Tables and columns follow Nova's names (its cell and API databases merged into one), so
an operator reading the database recognises it. Instances, services and compute nodes are
soft-deleted as Nova does: `deleted` is 0 while the row lives and takes the row's id when
it is deleted, which keeps unique constraints that include `deleted` satisfiable.
"""

from __future__ import annotations

import datetime
from typing import ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from novalite.timeutils import utcnow

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uniq_%(table_name)s0%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    # Every model maps one plain Table (SQLAlchemy types it as the wider FromClause); the
    # placement data layer writes to these tables with Core insert/update/delete.
    __table__: ClassVar[Table]


class TimestampMixin:
    created_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, onupdate=utcnow)


class SoftDeleteMixin:
    deleted_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    deleted: Mapped[int] = mapped_column(Integer, default=0, nullable=False)


class Service(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = "services"
    # the stamps: what the scheduler's refresh reads by (novalite.db.api.services)
    __table_args__ = (UniqueConstraint("host", "binary", "deleted"),
                      Index("ix_services_updated_at", "updated_at"),
                      Index("ix_services_created_at", "created_at"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    host: Mapped[str] = mapped_column(String(255))
    binary: Mapped[str] = mapped_column(String(255))
    topic: Mapped[str | None] = mapped_column(String(255))
    report_count: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    disabled_reason: Mapped[str | None] = mapped_column(String(255))
    forced_down: Mapped[bool] = mapped_column(Boolean, default=False)
    last_seen_up: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    version: Mapped[int] = mapped_column(Integer, default=0)


class ComputeNode(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = "compute_nodes"
    # the stamps: what the scheduler's refresh reads by (novalite.db.api.compute_nodes)
    __table_args__ = (UniqueConstraint("host", "hypervisor_hostname", "deleted"),
                      Index("ix_compute_nodes_updated_at", "updated_at"),
                      Index("ix_compute_nodes_created_at", "created_at"),
                      Index("ix_compute_nodes_deleted_at", "deleted_at"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    service_id: Mapped[int | None] = mapped_column(Integer)
    host: Mapped[str] = mapped_column(String(255))
    hypervisor_hostname: Mapped[str] = mapped_column(String(255))
    hypervisor_type: Mapped[str] = mapped_column(String(255))
    hypervisor_version: Mapped[int] = mapped_column(Integer, default=0)
    vcpus: Mapped[int] = mapped_column(Integer)
    memory_mb: Mapped[int] = mapped_column(Integer)
    local_gb: Mapped[int] = mapped_column(Integer)
    vcpus_used: Mapped[int] = mapped_column(Integer, default=0)
    memory_mb_used: Mapped[int] = mapped_column(Integer, default=0)
    local_gb_used: Mapped[int] = mapped_column(Integer, default=0)
    free_ram_mb: Mapped[int | None] = mapped_column(Integer)
    free_disk_gb: Mapped[int | None] = mapped_column(Integer)
    disk_available_least: Mapped[int | None] = mapped_column(Integer)
    current_workload: Mapped[int] = mapped_column(Integer, default=0)
    running_vms: Mapped[int] = mapped_column(Integer, default=0)
    cpu_info: Mapped[str] = mapped_column(Text, default="{}")
    host_ip: Mapped[str | None] = mapped_column(String(39))
    supported_instances: Mapped[list | None] = mapped_column(JSON)
    stats: Mapped[dict | None] = mapped_column(JSON)
    metrics: Mapped[list | None] = mapped_column(JSON)
    numa_topology: Mapped[dict | None] = mapped_column(JSON)
    pci_stats: Mapped[list | None] = mapped_column(JSON)
    cpu_allocation_ratio: Mapped[float] = mapped_column(Float)
    ram_allocation_ratio: Mapped[float] = mapped_column(Float)
    disk_allocation_ratio: Mapped[float] = mapped_column(Float)
    reserved_host_cpus: Mapped[int] = mapped_column(Integer, default=0)
    reserved_host_memory_mb: Mapped[int] = mapped_column(Integer, default=0)
    reserved_host_disk_mb: Mapped[int] = mapped_column(Integer, default=0)


class Flavor(Base, TimestampMixin):
    __tablename__ = "flavors"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    flavorid: Mapped[str] = mapped_column(String(255), unique=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    memory_mb: Mapped[int] = mapped_column(Integer)
    vcpus: Mapped[int] = mapped_column(Integer)
    root_gb: Mapped[int] = mapped_column(Integer, default=0)
    ephemeral_gb: Mapped[int] = mapped_column(Integer, default=0)
    swap: Mapped[int] = mapped_column(Integer, default=0)
    rxtx_factor: Mapped[float] = mapped_column(Float, default=1.0)
    vcpu_weight: Mapped[int | None] = mapped_column(Integer)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    is_public: Mapped[bool] = mapped_column(Boolean, default=True)
    description: Mapped[str | None] = mapped_column(Text)
    extra_specs: Mapped[list[FlavorExtraSpec]] = relationship(
        cascade="all, delete-orphan", lazy="selectin"
    )


class FlavorExtraSpec(Base, TimestampMixin):
    __tablename__ = "flavor_extra_specs"
    __table_args__ = (UniqueConstraint("flavor_id", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    flavor_id: Mapped[int] = mapped_column(ForeignKey("flavors.id"), index=True)
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str | None] = mapped_column(String(255))


class FlavorProject(Base, TimestampMixin):
    """Which projects may use a private flavor (os-flavor-access)."""

    __tablename__ = "flavor_projects"
    __table_args__ = (UniqueConstraint("flavor_id", "project_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    flavor_id: Mapped[int] = mapped_column(ForeignKey("flavors.id"))
    project_id: Mapped[str] = mapped_column(String(255))


class Image(Base, TimestampMixin, SoftDeleteMixin):
    """Image records of the built-in image store (the Glance-compatible API builds on it)."""

    __tablename__ = "images"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(255), index=True)
    status: Mapped[str] = mapped_column(String(30), default="queued")
    visibility: Mapped[str] = mapped_column(String(20), default="shared")
    owner: Mapped[str | None] = mapped_column(String(255))
    disk_format: Mapped[str | None] = mapped_column(String(20))
    container_format: Mapped[str | None] = mapped_column(String(20))
    size: Mapped[int | None] = mapped_column(BigInteger)
    virtual_size: Mapped[int | None] = mapped_column(BigInteger)
    min_disk: Mapped[int] = mapped_column(Integer, default=0)
    min_ram: Mapped[int] = mapped_column(Integer, default=0)
    protected: Mapped[bool] = mapped_column(Boolean, default=False)
    checksum: Mapped[str | None] = mapped_column(String(32))
    os_hash_algo: Mapped[str | None] = mapped_column(String(64))
    os_hash_value: Mapped[str | None] = mapped_column(String(128))
    properties: Mapped[dict] = mapped_column(JSON, default=dict)


class Instance(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = "instances"
    __table_args__ = (
        UniqueConstraint("uuid", "deleted"),
        Index("ix_instances_project_id_deleted", "project_id", "deleted"),
        Index("ix_instances_host_deleted", "host", "deleted"),
        # a project's server list, newest first, read a page at a time
        Index("ix_instances_project_id_deleted_created_at", "project_id", "deleted",
              "created_at"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36))
    display_name: Mapped[str | None] = mapped_column(String(255))
    display_description: Mapped[str | None] = mapped_column(Text)
    hostname: Mapped[str | None] = mapped_column(String(255))
    project_id: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    image_ref: Mapped[str | None] = mapped_column(String(255))
    instance_type_id: Mapped[int | None] = mapped_column(Integer)
    flavor: Mapped[dict | None] = mapped_column(JSON)  # snapshot {"cur": ..., "old", "new"}
    vcpus: Mapped[int | None] = mapped_column(Integer)
    memory_mb: Mapped[int | None] = mapped_column(Integer)
    root_gb: Mapped[int | None] = mapped_column(Integer)
    ephemeral_gb: Mapped[int | None] = mapped_column(Integer)
    host: Mapped[str | None] = mapped_column(String(255))
    node: Mapped[str | None] = mapped_column(String(255))
    launched_on: Mapped[str | None] = mapped_column(Text)
    vm_state: Mapped[str | None] = mapped_column(String(255))
    task_state: Mapped[str | None] = mapped_column(String(255))
    power_state: Mapped[int] = mapped_column(Integer, default=0)
    availability_zone: Mapped[str | None] = mapped_column(String(255))
    key_name: Mapped[str | None] = mapped_column(String(255))
    key_data: Mapped[str | None] = mapped_column(Text)
    user_data: Mapped[str | None] = mapped_column(Text)
    config_drive: Mapped[str | None] = mapped_column(String(255))
    locked: Mapped[bool] = mapped_column(Boolean, default=False)
    locked_by: Mapped[str | None] = mapped_column(String(20))
    system_metadata: Mapped[dict | None] = mapped_column(JSON)  # e.g. locked_reason
    # the guest's tagged devices (Nova's instance_extra.device_metadata)
    device_metadata: Mapped[list | None] = mapped_column(JSON)
    launch_index: Mapped[int | None] = mapped_column(Integer)
    reservation_id: Mapped[str | None] = mapped_column(String(255))
    access_ip_v4: Mapped[str | None] = mapped_column(String(39))
    access_ip_v6: Mapped[str | None] = mapped_column(String(39))
    progress: Mapped[int | None] = mapped_column(Integer)
    scheduled_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    launched_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    terminated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    metadata_items: Mapped[list[InstanceMetadata]] = relationship(
        primaryjoin="and_(Instance.uuid == foreign(InstanceMetadata.instance_uuid), "
        "InstanceMetadata.deleted == 0)",
        lazy="selectin",
        viewonly=True,
    )
    tags: Mapped[list[Tag]] = relationship(
        primaryjoin="Instance.uuid == foreign(Tag.resource_id)",
        lazy="selectin",
        viewonly=True,
        order_by="Tag.tag",
    )
    info_cache: Mapped[info_cache.InstanceInfoCache | None] = relationship(
        "InstanceInfoCache",
        primaryjoin="Instance.uuid == foreign(InstanceInfoCache.instance_uuid)",
        lazy="selectin",
        viewonly=True,
        uselist=False,
    )


class Tag(Base):
    """A server's tags (2.26), by Nova's table and column names."""

    __tablename__ = "tags"
    __table_args__ = (Index("ix_tags_tag", "tag"),)
    resource_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tag: Mapped[str] = mapped_column(String(80), primary_key=True)


class Quota(Base, TimestampMixin):
    """A project's own limit of one resource (os-quota-sets), by Nova's names."""

    __tablename__ = "quotas"
    __table_args__ = (UniqueConstraint("project_id", "resource"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255))
    resource: Mapped[str] = mapped_column(String(255))
    hard_limit: Mapped[int] = mapped_column(Integer)


class ProjectUserQuota(Base, TimestampMixin):
    """One user's limit within a project (os-quota-sets?user_id=)."""

    __tablename__ = "project_user_quotas"
    __table_args__ = (UniqueConstraint("user_id", "project_id", "resource"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[str] = mapped_column(String(255))
    resource: Mapped[str] = mapped_column(String(255))
    hard_limit: Mapped[int] = mapped_column(Integer)


class QuotaClass(Base, TimestampMixin):
    """The `default` class's limits (os-quota-class-sets), over [quota]'s."""

    __tablename__ = "quota_classes"
    __table_args__ = (UniqueConstraint("class_name", "resource"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    class_name: Mapped[str] = mapped_column(String(255))
    resource: Mapped[str] = mapped_column(String(255))
    hard_limit: Mapped[int] = mapped_column(Integer)


class InstanceMetadata(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = "instance_metadata"
    __table_args__ = (Index("ix_instance_metadata_instance_uuid", "instance_uuid"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(String(36))
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str | None] = mapped_column(String(255))


class RequestSpec(Base, TimestampMixin):
    __tablename__ = "request_specs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(String(36), unique=True)
    spec: Mapped[dict] = mapped_column(JSON)


class BuildOutbox(Base):
    """A build the API saved and has yet to see a conductor take (build_outbox.py)."""

    __tablename__ = "build_outbox"
    instance_uuid: Mapped[str] = mapped_column(String(36), primary_key=True)
    host: Mapped[str] = mapped_column(String(255), index=True)  # the API's that saved it
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class ConsoleAuthToken(Base):
    """A remote console URL's token (console_auth_tokens.py): its hash, never itself."""

    __tablename__ = "console_auth_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(255), unique=True)
    console_type: Mapped[str] = mapped_column(String(255))
    host: Mapped[str] = mapped_column(String(255))
    port: Mapped[int] = mapped_column(Integer)
    internal_access_path: Mapped[str | None] = mapped_column(String(255))
    instance_uuid: Mapped[str] = mapped_column(String(36), index=True)
    expires: Mapped[int] = mapped_column(Integer, index=True)  # a UNIX time, as Nova's
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class ShareMapping(Base, TimestampMixin):
    """A Manila share attached to a server (Nova's share_mapping): one row per share and
    server, its tag unique on the server. Removed with the server, never soft-deleted."""

    __tablename__ = "share_mapping"
    __table_args__ = (UniqueConstraint("instance_uuid", "share_id"),
                      UniqueConstraint("instance_uuid", "tag"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36))
    instance_uuid: Mapped[str] = mapped_column(String(36))
    share_id: Mapped[str] = mapped_column(String(36))
    status: Mapped[str] = mapped_column(String(32))  # attaching, inactive, active, ...
    tag: Mapped[str] = mapped_column(String(48))
    # Nova refuses a share without an export location before it records one
    export_location: Mapped[str] = mapped_column(Text)
    share_proto: Mapped[str] = mapped_column(String(32))  # NFS, CEPHFS


class InstanceFault(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = "instance_faults"
    __table_args__ = (Index("ix_instance_faults_instance_uuid", "instance_uuid"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(String(36))
    code: Mapped[int] = mapped_column(Integer)
    message: Mapped[str | None] = mapped_column(String(255))
    details: Mapped[str | None] = mapped_column(Text)
    host: Mapped[str | None] = mapped_column(String(255))


class InstanceAction(Base, TimestampMixin):
    __tablename__ = "instance_actions"
    __table_args__ = (Index("ix_instance_actions_instance_uuid_request_id",
                            "instance_uuid", "request_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[str] = mapped_column(String(255))
    instance_uuid: Mapped[str] = mapped_column(String(36))
    request_id: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    project_id: Mapped[str | None] = mapped_column(String(255))
    start_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    finish_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    message: Mapped[str | None] = mapped_column(String(255))
    events: Mapped[list[InstanceActionEvent]] = relationship(lazy="selectin")


class InstanceActionEvent(Base, TimestampMixin):
    __tablename__ = "instance_actions_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event: Mapped[str] = mapped_column(String(255))
    action_id: Mapped[int] = mapped_column(ForeignKey("instance_actions.id"), index=True)
    start_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    finish_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    result: Mapped[str | None] = mapped_column(String(255))
    traceback: Mapped[str | None] = mapped_column(Text)
    host: Mapped[str | None] = mapped_column(String(255))
    details: Mapped[str | None] = mapped_column(Text)


class Aggregate(Base, TimestampMixin):
    __tablename__ = "aggregates"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    hosts: Mapped[list[AggregateHost]] = relationship(
        cascade="all, delete-orphan", lazy="selectin"
    )
    metadata_items: Mapped[list[AggregateMetadata]] = relationship(
        cascade="all, delete-orphan", lazy="selectin"
    )


class AggregateHost(Base, TimestampMixin):
    __tablename__ = "aggregate_hosts"
    __table_args__ = (UniqueConstraint("host", "aggregate_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    aggregate_id: Mapped[int] = mapped_column(ForeignKey("aggregates.id"))


class AggregateMetadata(Base, TimestampMixin):
    __tablename__ = "aggregate_metadata"
    __table_args__ = (UniqueConstraint("aggregate_id", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    aggregate_id: Mapped[int] = mapped_column(ForeignKey("aggregates.id"))
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(String(255))


class InstanceGroup(Base, TimestampMixin):
    __tablename__ = "instance_groups"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    project_id: Mapped[str | None] = mapped_column(String(255))
    policies: Mapped[list[InstanceGroupPolicy]] = relationship(
        cascade="all, delete-orphan", lazy="selectin"
    )
    members: Mapped[list[InstanceGroupMember]] = relationship(
        cascade="all, delete-orphan", lazy="selectin"
    )


class InstanceGroupPolicy(Base, TimestampMixin):
    __tablename__ = "instance_group_policy"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    policy: Mapped[str] = mapped_column(String(255))
    rules: Mapped[dict | None] = mapped_column(JSON)
    group_id: Mapped[int] = mapped_column(ForeignKey("instance_groups.id"), index=True)


class InstanceGroupMember(Base, TimestampMixin):
    __tablename__ = "instance_group_member"
    __table_args__ = (UniqueConstraint("group_id", "instance_uuid"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(String(36))
    group_id: Mapped[int] = mapped_column(ForeignKey("instance_groups.id"))


class BlockDeviceMapping(Base, TimestampMixin):
    """A disk of an instance (Nova's block_device_mapping): here, a volume attached to it
    or one it boots with (made by its compute from an image, a snapshot or nothing when
    the source is not a volume), with the Cinder attachment that holds the volume and
    the connection the compute made.
    Rows are deleted with the attachment (Nova soft-deletes them; nothing reads them back
    here); one volume at most once per instance."""

    __tablename__ = "block_device_mapping"
    __table_args__ = (UniqueConstraint("instance_uuid", "volume_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    instance_uuid: Mapped[str] = mapped_column(String(36), index=True)
    source_type: Mapped[str] = mapped_column(String(255))
    destination_type: Mapped[str] = mapped_column(String(255))
    device_type: Mapped[str | None] = mapped_column(String(255))
    disk_bus: Mapped[str | None] = mapped_column(String(255))
    boot_index: Mapped[int | None] = mapped_column(Integer)
    device_name: Mapped[str | None] = mapped_column(String(255))
    delete_on_termination: Mapped[bool] = mapped_column(Boolean, default=False)
    volume_id: Mapped[str | None] = mapped_column(String(36), index=True)
    volume_size: Mapped[int | None] = mapped_column(Integer)
    attachment_id: Mapped[str | None] = mapped_column(String(36))
    connection_info: Mapped[dict | None] = mapped_column(JSON)
    tag: Mapped[str | None] = mapped_column(String(255))
    image_id: Mapped[str | None] = mapped_column(String(36))
    snapshot_id: Mapped[str | None] = mapped_column(String(36))
    volume_type: Mapped[str | None] = mapped_column(String(255))


# The other services' tables (imported last: they build on Base).
from novalite.db.models import (  # noqa: E402, F401
    identity,
    image,
    info_cache,
    keypair,
    migration,
    network,
    placement,
    volume,
)

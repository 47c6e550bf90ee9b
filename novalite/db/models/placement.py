"""Placement's tables: resource providers, their inventories, traits and aggregates, and
the allocations consumers hold against them (upstream Placement's schema and names).

Every write that changes what a provider offers or what is allocated from it bumps the
provider's `generation`; a consumer's writes bump the consumer's. Writers name the
generation they read, so a concurrent change is a 409, never a lost update.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base, TimestampMixin


class ResourceProvider(Base, TimestampMixin):
    __tablename__ = "resource_providers"
    __table_args__ = (
        Index("ix_resource_providers_root_provider_id", "root_provider_id"),
        Index("ix_resource_providers_parent_provider_id", "parent_provider_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    generation: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    # A root provider is its own root; every provider of a tree names the same root.
    root_provider_id: Mapped[int | None] = mapped_column(
        ForeignKey("resource_providers.id"))
    parent_provider_id: Mapped[int | None] = mapped_column(
        ForeignKey("resource_providers.id"))


class ResourceClass(Base, TimestampMixin):
    """Standard classes (os-resource-classes) and CUSTOM_* ones, by name."""

    __tablename__ = "resource_classes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)


class Inventory(Base, TimestampMixin):
    __tablename__ = "inventories"
    __table_args__ = (
        UniqueConstraint("resource_provider_id", "resource_class_id"),
        Index("ix_inventories_resource_class_id", "resource_class_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(ForeignKey("resource_providers.id"))
    resource_class_id: Mapped[int] = mapped_column(ForeignKey("resource_classes.id"))
    total: Mapped[int] = mapped_column(Integer)
    reserved: Mapped[int] = mapped_column(Integer, default=0)
    min_unit: Mapped[int] = mapped_column(Integer, default=1)
    max_unit: Mapped[int] = mapped_column(Integer)
    step_size: Mapped[int] = mapped_column(Integer, default=1)
    allocation_ratio: Mapped[float] = mapped_column(Float, default=1.0)


class Trait(Base, TimestampMixin):
    """Standard traits (os-traits) and CUSTOM_* ones, by name."""

    __tablename__ = "traits"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)


class ResourceProviderTrait(Base, TimestampMixin):
    __tablename__ = "resource_provider_traits"
    __table_args__ = (Index("ix_resource_provider_traits_trait_id", "trait_id"),)
    # Named by hand where the convention's name would pass the 63-character limit.
    resource_provider_id: Mapped[int] = mapped_column(
        ForeignKey("resource_providers.id", name="fk_rp_traits_resource_provider_id"),
        primary_key=True)
    trait_id: Mapped[int] = mapped_column(ForeignKey("traits.id"), primary_key=True)


class PlacementAggregate(Base, TimestampMixin):
    """An aggregate as placement knows it: only a uuid (Nova's host aggregates, and any
    grouping a client wants, e.g. providers shared via MISC_SHARES_VIA_AGGREGATE)."""

    __tablename__ = "placement_aggregates"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)


class ResourceProviderAggregate(Base, TimestampMixin):
    __tablename__ = "resource_provider_aggregates"
    __table_args__ = (
        Index("ix_resource_provider_aggregates_aggregate_id", "aggregate_id"),)
    resource_provider_id: Mapped[int] = mapped_column(
        ForeignKey("resource_providers.id", name="fk_rp_aggregates_resource_provider_id"),
        primary_key=True)
    aggregate_id: Mapped[int] = mapped_column(
        ForeignKey("placement_aggregates.id", name="fk_rp_aggregates_aggregate_id"),
        primary_key=True)


class ConsumerType(Base, TimestampMixin):
    __tablename__ = "consumer_types"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)


class Consumer(Base, TimestampMixin):
    __tablename__ = "consumers"
    __table_args__ = (Index("ix_consumers_project_id_user_id", "project_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    project_id: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[str] = mapped_column(String(255))
    generation: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    consumer_type_id: Mapped[int | None] = mapped_column(ForeignKey("consumer_types.id"))


class Allocation(Base, TimestampMixin):
    __tablename__ = "allocations"
    __table_args__ = (
        Index("ix_allocations_resource_provider_id_resource_class_id_used",
              "resource_provider_id", "resource_class_id", "used"),
        Index("ix_allocations_consumer_id", "consumer_id"),
        Index("ix_allocations_resource_class_id", "resource_class_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(ForeignKey("resource_providers.id"))
    consumer_id: Mapped[str] = mapped_column(String(36))  # the consumer's uuid
    resource_class_id: Mapped[int] = mapped_column(ForeignKey("resource_classes.id"))
    used: Mapped[int] = mapped_column(Integer)

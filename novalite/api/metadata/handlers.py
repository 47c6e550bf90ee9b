"""Nova's metadata API as the network node's proxy reaches it: the instance is named by
`X-Instance-ID`, signed with the shared secret (`X-Instance-ID-Signature`, HMAC-SHA256)
and checked against `X-Tenant-ID`, as Nova's handler does behind Neutron's proxy. It
serves the OpenStack tree (novalite.instance_metadata: the config drive's content) and
the EC2-style paths cloud-init and older tools read."""

from __future__ import annotations

import hmac

from novalite import exception, instance_metadata
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse, streams_body
from novalite.conf import CONF
from novalite.db.api import instances
from novalite.objects.instance import Instance

# the versions Nova lists; each answers latest's tree less what later versions added
OPENSTACK_VERSIONS = ("2012-08-10", "2013-04-04", "2013-10-17", "2015-10-15", "2016-06-30",
                      "2016-10-06", "2017-02-22", "2018-08-27", "2020-10-14", "latest")
EC2_VERSIONS = ("1.0", "2007-01-19", "2007-03-01", "2007-08-29", "2007-10-10",
                "2007-12-15", "2008-02-01", "2008-09-01", "2009-04-04", "latest")
OPENSTACK_FILES = ("meta_data.json", "network_data.json", "user_data", "password",
                   "vendor_data.json", "vendor_data2.json")


def _text(content: str | bytes, media_type: str = "text/plain") -> ApiResponse:
    data = content.encode() if isinstance(content, str) else content
    return ApiResponse(200, stream=iter([data]), media_type=media_type)


def _instance(req: ApiRequest) -> Instance:
    headers = req.headers
    instance_id = headers.get("x-instance-id")
    if not instance_id:
        raise HTTPFault(400, "X-Instance-ID header is missing from request.")
    if not headers.get("x-tenant-id"):
        raise HTTPFault(400, "X-Tenant-ID header is missing from request.")
    expected = instance_metadata.sign(instance_id, CONF.neutron.metadata_proxy_shared_secret)
    if not hmac.compare_digest(expected, headers.get("x-instance-id-signature", "")):
        raise HTTPFault(403, "Invalid proxy request signature.")
    try:
        instance = instances.instance_get(instance_id)
    except exception.InstanceNotFound:
        raise HTTPFault(404, f"Instance {instance_id} not found.") from None
    if instance.project_id != headers.get("x-tenant-id"):
        raise HTTPFault(404, f"Instance {instance_id} not found.")
    return instance


def root(req: ApiRequest) -> ApiResponse:
    return _text("\n".join(EC2_VERSIONS))


def openstack_versions(req: ApiRequest) -> ApiResponse:
    _instance(req)
    return _text("\n".join(OPENSTACK_VERSIONS))


def _version(req: ApiRequest) -> None:
    if req.params["version"] not in OPENSTACK_VERSIONS:
        raise HTTPFault(404, "The resource could not be found.")


def openstack_files(req: ApiRequest) -> ApiResponse:
    instance = _instance(req)
    _version(req)
    present = set(instance_metadata.files(instance))
    if instance_metadata.serves_password(req.params["version"]):
        present.add(f"{instance_metadata.ROOT}/password")
    return _text("\n".join(name for name in OPENSTACK_FILES
                           if f"{instance_metadata.ROOT}/{name}" in present))


def openstack_file(req: ApiRequest) -> ApiResponse:
    instance = _instance(req)
    _version(req)
    version = req.params["version"]
    if req.params["name"] == "password" and instance_metadata.serves_password(version):
        return _text(instance_metadata.password(instance.system_metadata))
    found = instance_metadata.files(instance, version).get(
        f"{instance_metadata.ROOT}/{req.params['name']}")
    if found is None:
        raise HTTPFault(404, "The resource could not be found.")
    media = "application/json" if req.params["name"].endswith(".json") else "text/plain"
    return _text(found, media)


@streams_body
def post_password(req: ApiRequest) -> ApiResponse:
    """A guest posts its password once (encrypted with its key), as Nova's metadata
    service takes it: 409 while one is kept (clearing it through the compute API allows
    another), 400 past Nova's size."""
    instance = _instance(req)
    _version(req)
    if not instance_metadata.serves_password(req.params["version"]):
        raise HTTPFault(404, "The resource could not be found.")
    body = b""
    for chunk in req.body:
        body += chunk
        if len(body) > instance_metadata.PASSWORD_MAX_SIZE:
            raise HTTPFault(400, "Request is too large.")
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise HTTPFault(400, "The password is not UTF-8 text.") from None

    def unless_kept(system_metadata: dict[str, str]) -> dict[str, str] | None:
        if instance_metadata.password(system_metadata):
            return None
        return instance_metadata.password_chunks(text)
    if not instances.system_metadata_update(instance.uuid, unless_kept):
        raise HTTPFault(409, "There was a conflict when trying to complete your request.")
    return _text("")


def _ec2_tree(instance: Instance) -> dict[str, str | dict]:
    fixed = [ip for vif in instance.network_info for ip in vif.fixed_ips() if ip.version == 4]
    floating = [f.address for ip in fixed for f in ip.floating_ips]
    tree: dict[str, str | dict] = {
        "instance-id": instance.uuid, "hostname": instance.hostname or "",
        "local-hostname": instance.hostname or "",
        "local-ipv4": fixed[0].address if fixed else "",
        "public-ipv4": floating[0] if floating else "",
        "placement": {"availability-zone": instance.availability_zone or ""},
    }
    if instance.key_name and instance.key_data:
        tree["public-keys"] = {"0": {"openssh-key": instance.key_data}}
    return tree


def ec2_meta_data(req: ApiRequest) -> ApiResponse:
    """A path under meta-data/: a directory lists its entries (subdirectories end in
    "/"), a leaf answers its value; public-keys/ lists "0=<name>" as EC2 does."""
    instance = _instance(req)
    node: str | dict = _ec2_tree(instance)
    for part in [p for p in req.params.get("path", "").split("/") if p]:
        if not isinstance(node, dict) or part not in node:
            raise HTTPFault(404, "The resource could not be found.")
        node = node[part]
    if isinstance(node, dict):
        if node and set(node) == {"0"} and instance.key_name and "openssh-key" not in node:
            return _text(f"0={instance.key_name}")
        return _text("\n".join(f"{k}/" if isinstance(v, dict) else k
                               for k, v in sorted(node.items())))
    return _text(node)


def ec2_user_data(req: ApiRequest) -> ApiResponse:
    data = instance_metadata.user_data(_instance(req))
    if data is None:
        raise HTTPFault(404, "The resource could not be found.")
    return _text(data, "application/octet-stream")


def ec2_index(req: ApiRequest) -> ApiResponse:
    instance = _instance(req)
    entries = ["meta-data/"] + (["user-data"] if instance.user_data else [])
    return _text("\n".join(entries))



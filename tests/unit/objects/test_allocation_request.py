"""Placement's candidates: grouped by the node they land on, read from its JSON, written
back for a claim, and carried in a Selection across RPC, including from a peer that still
sends the dict."""

import orjson
import pytest

from novalite.objects import codec
from novalite.objects.allocation_request import (
    AllocationCandidates,
    AllocationRequest,
    MalformedAnswer,
)
from novalite.objects.request_spec import Selection

NODE, VF = "8e3c5bd4-4b07-4c5e-9b0a-2f4d8a1c6e01", "0b1e9d7a-7f4c-4b39-9d54-3c2e7a9f5b02"
PLACEMENT_FORM = {"allocations": {NODE: {"resources": {"VCPU": 2, "MEMORY_MB": 512}},
                                  VF: {"resources": {"SRIOV_NET_VF": 1}}},
                  "mappings": {"": [NODE], "_NET": [VF]}}


def test_a_candidate_reads_placements_form_and_claims_in_it():
    candidate = AllocationRequest.from_placement(PLACEMENT_FORM)
    assert candidate.allocations == {NODE: {"VCPU": 2, "MEMORY_MB": 512},
                                     VF: {"SRIOV_NET_VF": 1}}
    assert candidate.mappings == {"": [NODE], "_NET": [VF]}
    assert candidate.to_placement() == PLACEMENT_FORM["allocations"]


def test_a_candidate_before_mappings_has_none():
    candidate = AllocationRequest.from_placement({"allocations": {NODE: {"resources": {}}}})
    assert candidate.mappings == {} and candidate.allocations == {NODE: {}}


def test_candidates_are_grouped_under_the_root_of_each_tree_they_take_from():
    other_node = "5f0c2a4e-1d3b-4c8e-9a7f-6b2d1e0c9f03"
    other = {"allocations": {other_node: {"resources": {"VCPU": 2}}}}  # before mappings
    candidates = AllocationCandidates.decode(orjson.dumps({
        "allocation_requests": [PLACEMENT_FORM, other],
        "provider_summaries": {
            NODE: {"resources": {}, "root_provider_uuid": NODE},
            VF: {"resources": {"SRIOV_NET_VF": {"capacity": 8, "used": 1}},
                 "parent_provider_uuid": NODE, "root_provider_uuid": NODE},
            other_node: {"resources": {}}}}))  # before 1.29: its own root
    grouped = candidates.by_root()
    assert {root: [c.request() for c in offered] for root, offered in grouped.items()} == {
        NODE: [AllocationRequest.from_placement(PLACEMENT_FORM)],
        other_node: [AllocationRequest.from_placement(other)]}


@pytest.mark.parametrize("body", [
    b"<html>busy</html>",
    b'{"allocation_requests": {}, "provider_summaries": {}}',
    b'{"allocation_requests": [{"allocations": {"n": {"resources": {"VCPU": "one"}}}}], '
    b'"provider_summaries": {}}',
    b'{"provider_summaries": {}}'])
def test_an_answer_not_shaped_as_placements_is_refused_saying_why(body):
    with pytest.raises(MalformedAnswer):
        AllocationCandidates.decode(body).requests[0].request()


def _selection(allocation_request):
    return Selection(service_host="h1", nodename="h1", compute_node_uuid=NODE,
                     instance_uuid="i1", allocation_request=allocation_request,
                     allocation_request_version="1.36")


def test_a_selection_carries_its_candidate_across_rpc():
    sent = _selection(AllocationRequest.from_placement(PLACEMENT_FORM))
    assert Selection.VERSION == "1.3"
    assert codec.deserialize(codec.serialize(sent)) == sent


def test_a_selection_from_a_peer_before_1_3_turns_the_dict_into_the_object():
    old = codec.serialize(_selection(None))
    old["nl.version"], old["nl.data"]["allocation_request"] = "1.2", PLACEMENT_FORM
    received = codec.deserialize(old)
    assert received.allocation_request == AllocationRequest.from_placement(PLACEMENT_FORM)

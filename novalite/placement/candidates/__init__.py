"""GET /allocation_candidates behind the HTTP layer.

request   what was asked: request groups and request-wide parameters (pure data)
snapshot  the providers a search looks at, read from the database set-wise
search    upstream Placement's semantics over a snapshot: per-group candidates, then
          their combination (group_policy, same_subtree, capacity), limit, summaries
flat      the fast path: one group on a deployment without trees or sharing providers,
          answered by one SQL query that stops at the limit
render    the response body per microversion
"""

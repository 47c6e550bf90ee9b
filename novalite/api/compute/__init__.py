"""The Compute API v2.1 (Nova's), served under /compute."""

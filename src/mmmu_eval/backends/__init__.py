"""Model backends, one file each, chosen by a spec string through one registry."""

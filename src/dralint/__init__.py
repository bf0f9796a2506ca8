"""dralint: a linter for Kubernetes Dynamic Resource Allocation (resource.k8s.io) manifests."""

__version__ = "0.1.0"

"""Kubernetes knowledge shared by the rules, migrate, the schema check and plugins.

- `dralint.k8s.resource`: the resource.k8s.io group, its versions and kinds,
  the fields of a request, list limits.
- `dralint.k8s.names`: name and label validators as k8s.io/apimachinery has them
  (DNS labels and subdomains, qualified names, C identifiers, driver names).
- `dralint.k8s.formats`: quantities, timestamps, int32/int64, base64.
- `dralint.k8s.suggest`: did-you-mean: the known names closest to a misspelt one
  (`OneEditAway` among many names, `close_matches` / `close_hint` with difflib).
- `dralint.k8s.claims`: how the API server sees claims and templates: request
  shapes per version, defaulting, feature gates, release differences.

Public API: plugins may import these; names without a leading underscore are
kept stable within a minor version.
"""

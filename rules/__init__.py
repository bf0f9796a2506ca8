"""The built-in rules, one module per concern: `dralint.rules.<module>`.

They use only the public API that plugins use (`dralint.api` for the `@rule`
decorator and document views, `dralint.k8s` for Kubernetes knowledge) and are
loaded the way a plugin package is (`dralint.registry.rules_in_package`).

This folder is the `dralint.rules` subpackage: a wheel carries it as
dralint/rules (pyproject.toml), and in a checkout or an editable install
`src/dralint/rules/__init__.py` points the package at it.
"""

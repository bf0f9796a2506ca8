"""Names vulture (dead-code check in .ci/run) cannot see used: attributes set for libraries,
protocol signatures, and the public API that plugins use but dralint itself does not.

Each line is a use vulture counts; keep the reason next to it.
"""

# Set on objects a library reads: protobuf map entries, ruamel.yaml's parser and loader.
_.map_entry  # google.protobuf DescriptorProto option
_.doc_infos  # ruamel.yaml's parser reads it (load/backend.py)
_.preserve_quotes  # ruamel.yaml round-trip loader option (migrate)
_.__package__  # a module built by hand for a rules folder / the pure-Python parser

# Signatures fixed by a protocol.
protocol  # object.__reduce_ex__(protocol)
server_name  # ssl.SSLContext.sni_callback(sslobj, server_name, context)
__getattr__  # module-level __getattr__ (PEP 562): dralint.schemas.RELEASES, ALL_DRA_KINDS
__init_subclass__  # dralint.records.NamedRecord: type() calls it for each record class
_.__match_args__  # dralint.records.NamedRecord: a `match` statement's positional patterns read it
_._field_defaults  # dralint.records.NamedRecord: namedtuple's API
_._asdict  # dralint.records.NamedRecord: namedtuple's API
_.strict  # dralint.jsondata._Options: _json.make_scanner reads these as json.JSONDecoder's
_.object_hook  # dralint.jsondata._Options
_.object_pairs_hook  # dralint.jsondata._Options
_.parse_float  # dralint.jsondata._Options
_.parse_constant  # dralint.jsondata._Options

# Public API for rules and plugins (README, "Your own rules and policies").
_.exists_in_source  # dralint.api.DocumentView
_.namespaced  # dralint.schemas.KindInfo
driver_name  # dralint.k8s.names
is_namespace_name  # dralint.k8s.names
DEVICE_MAX_DOMAIN  # dralint.k8s.names
QUALIFIED_NAME_PREFIX_MAX  # dralint.k8s.names
is_template  # dralint.k8s.claims (spec_path and devices_path test the kind inline: hot path)
spec_fields  # dralint.k8s.claims (README: whether a document sets a field anywhere in spec, one set test)
_workspace  # dralint.lsp.server._Protocol: pygls' attribute, replaced by a BufferWorkspace
report_server_error  # dralint.lsp.server.DralintServer: pygls calls it for a failing handler
_create_text_document  # dralint.lsp.text.BufferWorkspace: pygls calls it for didOpen
update_text_document  # dralint.lsp.text.BufferWorkspace: pygls calls it for didChange
check_fixture  # dralint.testing: plugin authors' harness (docs/plugins.md)
_.source_line  # dralint.testing.Expectation: where the comment is, for a reader of a difference

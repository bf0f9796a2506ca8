"""The stages one file's bytes pass through, in order, and the run that strings them together.

    read        sources (files, folders, stdin; gitignore, globs), kustomize (patches), origins
    triage      triage: Kubernetes or not, and which documents
    load        load/: YAML or JSON to plain data, positions replayed only when asked
    resolve     resolve: apiVersion and kind to the release's type; releases, gate_settings:
                a file's `# dralint:` release and gate comments
    schema      schema_check, then drop: the fields of gates that are off, as on create
    rules       engine (with dispatch): document rules, and run-scope records collected
    run-scope   engine: the run-scope rules over every file's records, at the end
    suppress    suppress, ignore_paths, then selection (select/ignore/severity)
    settle      run: positions and fixes computed, documents let go, problems ordered

`stages` holds the order (`FILE_STAGES`, `DOCUMENT_STAGES`) and `run` applies it; `partial` is the typed result a
chunk or a cached file hands back, merged by `parallel` and `result_cache`; `lifecycle` is the
upgrade check (`--target-version`). Front doors (cli, lsp, webhook, migrate, fix, and `dralint.lint`
for Python callers) sit beside this package and only feed it and report what it returns. Nothing
is re-exported here: import the stage module you mean.
"""

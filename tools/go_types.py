"""A small parser for the subset of Go used by the Kubernetes API type packages.

`k8s.io/api/resource/<version>/*.go` declares its API with a narrow slice of Go:
imports, `type Name struct {...}` (fields with `json` tags, embedded structs),
`type Name basic` (string enums), `const (...)` blocks of those enums, `var`
blocks, and functions (`register.go`, the generated prerelease-lifecycle
methods). Comments carry the generators' markers (`+optional`, `+listType=map`,
`+featureGate=Gate`, `+k8s:maxItems=8`, ...). This module reads exactly that
into plain data, so the extractor needs no Go toolchain:

    pkg = parse_package([Path("types.go"), Path("register.go")])
    pkg.types["DeviceRequest"].type.fields[0].json_name   # "name"

Function bodies are skipped by brace matching and kept as token lists (the
lifecycle methods are `return 1, 33`). Anything outside the subset (generics,
interfaces with methods, nested func literals at top level) raises GoSyntaxError
with a line number rather than being guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Union

__all__ = [
    "GoSyntaxError", "Ident", "Qualified", "Pointer", "Slice", "Map", "Struct", "Field",
    "TypeDecl", "ConstDecl", "FuncDecl", "GoFile", "GoPackage", "markers", "parse_file",
    "parse_package", "tokenize",
]


class GoSyntaxError(ValueError):
    def __init__(self, message: str, line: int, path: str = "<go>") -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.line = line


# --- tokens -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "ident", "string", "number", "op", "comment", "newline"
    text: str
    line: int


_TOKEN_RE = re.compile(
    r"""
    (?P<newline>\n)
  | (?P<space>[ \t\r]+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|`[^`]*`|'(?:[^'\\\n]|\\.)*')
  | (?P<number>[0-9][0-9a-fA-FxX_.]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|:=|<-|&&|\|\||==|!=|<=|>=|[{}()\[\].,;*&=:+\-/<>!|^%~])
    """,
    re.VERBOSE | re.DOTALL,
)


def tokenize(text: str, path: str = "<go>") -> list[Token]:
    tokens: list[Token] = []
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            raise GoSyntaxError(f"unexpected character {text[pos]!r}", line, path)
        kind = m.lastgroup
        chunk = m.group()
        if kind != "space":
            tokens.append(Token(kind, chunk, line))
        line += chunk.count("\n")
        pos = m.end()
    return tokens


# --- syntax tree ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Ident:
    name: str  # a type of this package or a predeclared one (string, int32, ...)


@dataclass(frozen=True, slots=True)
class Qualified:
    package: str  # import name as written, e.g. "metav1"
    name: str


@dataclass(frozen=True, slots=True)
class Pointer:
    elem: "TypeExpr"


@dataclass(frozen=True, slots=True)
class Slice:
    elem: "TypeExpr"


@dataclass(frozen=True, slots=True)
class Map:
    key: "TypeExpr"
    value: "TypeExpr"


@dataclass(frozen=True, slots=True)
class Field:
    name: str | None  # None for an embedded field
    type: "TypeExpr"
    tag: str
    doc: tuple[str, ...]  # comment lines above the field, "//" stripped
    line: int

    @property
    def json_name(self) -> str | None:
        """The JSON key ("" for `json:",inline"`, None for `json:"-"` or no tag)."""
        m = re.search(r'(?:^|\s)json:"([^"]*)"', self.tag)
        if m is None:
            return None
        name = m.group(1).split(",")[0]
        return None if name == "-" else name

    @property
    def json_options(self) -> tuple[str, ...]:
        m = re.search(r'(?:^|\s)json:"([^"]*)"', self.tag)
        return tuple(m.group(1).split(",")[1:]) if m else ()

    @property
    def markers(self) -> dict[str, list[str]]:
        return markers(self.doc)


@dataclass(frozen=True, slots=True)
class Struct:
    fields: tuple[Field, ...]


TypeExpr = Union[Ident, Qualified, Pointer, Slice, Map, Struct]


@dataclass(frozen=True, slots=True)
class TypeDecl:
    name: str
    type: TypeExpr
    doc: tuple[str, ...]
    line: int
    alias: bool = False  # `type A = B`

    @property
    def markers(self) -> dict[str, list[str]]:
        return markers(self.doc)


@dataclass(frozen=True, slots=True)
class ConstDecl:
    name: str
    type: str | None
    value: str  # the source text of the value expression
    doc: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class FuncDecl:
    name: str
    receiver: str | None  # the receiver's type name, pointer stripped
    body: tuple[str, ...]  # token texts between the braces, comments dropped
    line: int


@dataclass
class GoFile:
    package: str
    imports: dict[str, str] = field(default_factory=dict)  # name -> import path
    types: dict[str, TypeDecl] = field(default_factory=dict)
    consts: list[ConstDecl] = field(default_factory=list)
    funcs: list[FuncDecl] = field(default_factory=list)


@dataclass
class GoPackage:
    name: str
    imports: dict[str, str] = field(default_factory=dict)
    types: dict[str, TypeDecl] = field(default_factory=dict)
    consts: list[ConstDecl] = field(default_factory=list)
    funcs: list[FuncDecl] = field(default_factory=list)


_MARKER_RE = re.compile(r"^\+([A-Za-z0-9_.:\-/()\"' ,]+?)(?:=(.*))?$")


def markers(doc: Iterable[str]) -> dict[str, list[str]]:
    """`+name=value` lines of a comment -> {name: [values]} ("" for a bare `+name`).

    Prefixed validation tags keep their prefix in the name, so
    `+k8s:beta(since: "1.37")=+k8s:maxItems=8` is rare enough to be read as
    name `k8s:beta(since: "1.37")` with the rest as value; callers that care
    about declarative validation look at the raw lines.
    """
    out: dict[str, list[str]] = {}
    for raw in doc:
        text = raw.strip()
        if not text.startswith("+") or text.startswith("+ "):
            continue
        if "=" in text:
            name, value = text[1:].split("=", 1)
        else:
            name, value = text[1:], ""
        out.setdefault(name.strip(), []).append(value.strip())
    return out


# --- parser ---------------------------------------------------------------------

class _Parser:
    def __init__(self, tokens: list[Token], path: str) -> None:
        self.path = path
        pending_doc: list[str] = []
        self.tokens: list[Token] = []
        self.docs: list[tuple[str, ...]] = []  # comment lines preceding each token
        blank_run = 0
        for tok in tokens:
            if tok.kind == "comment":
                if tok.text.startswith("//"):
                    pending_doc.append(tok.text[2:])
                else:
                    pending_doc.extend(tok.text[2:-2].splitlines())
                blank_run = 0
            elif tok.kind == "newline":
                blank_run += 1
                if blank_run > 1 and pending_doc:
                    # A blank line ends a comment block; gengo still reads the block
                    # above it for type markers (+genclient ...), so keep it.
                    pending_doc.append("")
            else:
                self.tokens.append(tok)
                self.docs.append(tuple(pending_doc))
                pending_doc = []
                blank_run = 0
        # Go ends a statement at a line break; the parser needs that only to tell an
        # embedded field (`metav1.TypeMeta`) from a named one, so record the last token of each line.
        last_on_line: dict[int, int] = {}
        for i, tok in enumerate(self.tokens):
            last_on_line[tok.line] = i
        self.line_end = set(last_on_line.values())
        self.pos = 0

    # helpers
    def peek(self, offset: int = 0) -> Token | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def error(self, message: str) -> GoSyntaxError:
        tok = self.peek()
        return GoSyntaxError(message, tok.line if tok else -1, self.path)

    def take(self, text: str | None = None, kind: str | None = None) -> Token:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text) or (kind is not None and tok.kind != kind):
            want = text or kind
            got = tok.text if tok else "end of file"
            raise self.error(f"expected {want!r}, found {got!r}")
        self.pos += 1
        return tok

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.text == text

    def doc(self) -> tuple[str, ...]:
        return self.docs[self.pos] if self.pos < len(self.docs) else ()

    # grammar
    def file(self) -> GoFile:
        self.take("package")
        out = GoFile(self.take(kind="ident").text)
        while self.peek() is not None:
            tok = self.peek()
            if tok.text == "import":
                self.take()
                for spec in self._group(self._import_spec):
                    out.imports[spec[0]] = spec[1]
            elif tok.text == "type":
                first_doc = self.doc()
                self.take()
                for decl in self._type_group(first_doc):
                    out.types[decl.name] = decl
            elif tok.text == "const":
                self.take()
                out.consts.extend(c for c in self._group(self._const_spec) if c is not None)
            elif tok.text == "var":
                self.take()
                self._group(self._skip_spec)
            elif tok.text == "func":
                out.funcs.append(self._func())
            elif tok.text == ";":
                self.take()
            else:
                raise self.error(f"unexpected {tok.text!r} at top level")
        return out

    def _type_group(self, first_doc: Any) -> Any:
        """The declarations of `type ( ... )` or one `type X ...`: the comment above `type` documents the first only."""
        docs = [first_doc]
        return self._group(lambda: self._type_spec(docs.pop() if docs else ()))

    def _group(self, spec):
        if self.at("("):
            self.take("(")
            items = []
            while not self.at(")"):
                if self.at(";"):
                    self.take()
                    continue
                items.append(spec())
            self.take(")")
            return items
        return [spec()]

    def _import_spec(self) -> tuple[str, str]:
        name = None
        if self.peek().kind == "ident" or self.at("_") or self.at("."):
            name = self.take().text
        path = self._string_value(self.take(kind="string").text)
        return (name or path.rsplit("/", 1)[-1], path)

    @staticmethod
    def _string_value(literal: str) -> str:
        """The text of a raw (`...`) or interpreted ("...") string literal, without its quotes."""
        body = literal[1:-1]
        return body if literal[0] == "`" else bytes(body, "utf-8").decode("unicode_escape")

    def _type_spec(self, keyword_doc: tuple[str, ...] = ()) -> TypeDecl:
        # A lone `type X ...` has its comment above the keyword; in a group, above the name.
        doc = self.doc() or keyword_doc
        name_tok = self.take(kind="ident")
        alias = False
        if self.at("="):
            self.take()
            alias = True
        if self.at("["):
            raise self.error("generic types are outside the supported subset")
        return TypeDecl(name_tok.text, self._type(), doc, name_tok.line, alias)

    def _type(self) -> TypeExpr:
        tok = self.peek()
        if tok is None:
            raise self.error("expected a type")
        if tok.text == "*":
            self.take()
            return Pointer(self._type())
        if tok.text == "[":
            self.take()
            if not self.at("]"):
                raise self.error("arrays of fixed length are outside the supported subset")
            self.take("]")
            return Slice(self._type())
        if tok.text == "map":
            self.take()
            self.take("[")
            key = self._type()
            self.take("]")
            return Map(key, self._type())
        if tok.text == "struct":
            self.take()
            return self._struct()
        if tok.kind == "ident":
            self.take()
            if self.at("."):
                self.take()
                return Qualified(tok.text, self.take(kind="ident").text)
            return Ident(tok.text)
        raise self.error(f"unsupported type starting with {tok.text!r}")

    def _struct(self) -> Struct:
        self.take("{")
        fields: list[Field] = []
        while not self.at("}"):
            if self.at(";"):
                self.take()
                continue
            doc = self.doc()
            first = self.peek()
            names: list[str | None]
            # Embedded: `Type`, `*Type`, `pkg.Type` followed by a tag or the end of the line.
            embedded = first.text == "*" or (
                first.kind == "ident" and (self.pos in self.line_end or self.peek(1).text == "." or self.peek(1).kind == "string")
            )
            if embedded:
                names = [None]
            else:
                names = [self.take(kind="ident").text]
                while self.at(","):
                    self.take()
                    names.append(self.take(kind="ident").text)
            ftype = self._type()
            tag = ""
            if self.peek() is not None and self.peek().kind == "string":
                tag = self._string_value(self.take().text)
            for name in names:
                fields.append(Field(name, ftype, tag, doc, first.line))
        self.take("}")
        return Struct(tuple(fields))

    def _const_spec(self) -> ConstDecl | None:
        doc = self.doc()
        name_tok = self.take(kind="ident")
        ctype = None
        if self.peek().kind == "ident" and not self.at("="):
            ctype = self.take().text
            if self.at("."):
                self.take()
                ctype += "." + self.take(kind="ident").text
        value: list[str] = []
        if self.at("="):
            self.take()
            depth = 0
            while True:
                tok = self.peek()
                if tok is None:
                    break
                if depth == 0 and (tok.text in (")", ";") or (value and self.pos - 1 in self.line_end)):
                    break
                depth += tok.text in "([{"
                depth -= tok.text in ")]}"
                value.append(tok.text)
                self.take()
        return ConstDecl(name_tok.text, ctype, " ".join(value), doc, name_tok.line)

    def _skip_spec(self) -> None:
        depth = 0
        start_line = self.peek().line
        while True:
            tok = self.peek()
            if tok is None:
                return
            if depth == 0 and tok.text in (")", ";"):
                return
            if depth == 0 and tok.line != start_line and self.pos - 1 in self.line_end and tok.kind == "ident":
                return
            depth += tok.text in ("(", "[", "{")
            depth -= tok.text in (")", "]", "}")
            self.take()

    def _func(self) -> FuncDecl:
        line = self.take("func").line
        receiver = None
        if self.at("("):
            self.take()
            self.take(kind="ident")
            if self.at("*"):
                self.take()
            receiver = self.take(kind="ident").text
            self.take(")")
        name = self.take(kind="ident").text
        while not self.at("{"):  # signature
            if self.peek() is None:
                raise self.error("function without body")
            self.take()
        self.take("{")
        body: list[str] = []
        depth = 1
        while True:
            tok = self.peek()
            if tok is None:
                raise self.error(f"unterminated body of func {name}")
            self.take()
            if tok.text == "{":
                depth += 1
            elif tok.text == "}":
                depth -= 1
                if depth == 0:
                    break
            body.append(tok.text)
        return FuncDecl(name, receiver, tuple(body), line)


def parse_file(text: str, path: str = "<go>") -> GoFile:
    return _Parser(tokenize(text, path), path).file()


# File text -> its parse, read only by parse_package: one extraction reads each package for its schemas,
# field docs, feature gates and lifecycle, and consecutive releases carry many identical files.
_PARSED: dict[str, GoFile] = {}


def parse_package(paths: Iterable[Path]) -> GoPackage:
    """Parse the non-test .go files of one package; declarations are merged."""
    pkg: GoPackage | None = None
    for path in sorted(paths):
        text = Path(path).read_text(encoding="utf-8")
        parsed = _PARSED.get(text)
        if parsed is None:
            parsed = _PARSED[text] = parse_file(text, str(path))
        if pkg is None:
            pkg = GoPackage(parsed.package)
        elif parsed.package != pkg.name:
            raise GoSyntaxError(f"package {parsed.package}, expected {pkg.name}", 1, str(path))
        pkg.imports.update(parsed.imports)
        pkg.types.update(parsed.types)
        pkg.consts.extend(parsed.consts)
        pkg.funcs.extend(parsed.funcs)
    if pkg is None:
        raise ValueError("no Go files")
    return pkg

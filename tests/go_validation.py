"""The error call sites of the API server's handwritten validation (`validation.go`), read from the Go source.

A call site is where the server makes a `field.Invalid / Required / Forbidden /
NotSupported / Duplicate / TooMany / TooLong` error: either directly, or through
a helper whose errors belong to the caller's field (the list helpers
`validateSlice`/`validateSet`/`validateMap`, and the name validators of
apimachinery and core, see PRODUCERS). Each site is named by its enclosing Go
function, the error type and the field-path expression as written (whitespace
removed), e.g. `("validateDeviceClaim", "TooMany", 'fldPath.Child("requests")')`.

Only what is needed to find calls is understood of Go: comments, the three
string forms, balanced brackets and top-level `func` declarations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"  # ../shared of the checkout (also read by tools/release_drop.py)
VALIDATION = SHARED / "k8s-validation"
VALIDATION_GO = Path("pkg/apis/resource/validation/validation.go")

ERROR_TYPES = ("Invalid", "Required", "Forbidden", "NotSupported", "Duplicate", "TooMany", "TooLong")


@dataclass(frozen=True)
class Producer:
    """A helper whose errors a caller's row covers: which argument is the field path, and what it makes."""

    path_arg: int
    types: tuple[str, ...]


PRODUCERS: dict[str, Producer] = {
    # The list helpers of validation.go; their own field.* calls are generic (see GENERIC_HELPERS).
    "validateSlice": Producer(3, ("TooMany",)),
    "validateSet": Producer(4, ("TooMany", "Duplicate")),
    "validateMap": Producer(5, ("TooMany",)),
    # Name validators aliased in validation.go's `var (...)` block, and their core originals.
    "validateDriverName": Producer(1, ("Required", "TooLong", "Invalid")),
    "corevalidation.ValidateCSIDriverName": Producer(1, ("Required", "TooLong", "Invalid")),
    "validateRequestName": Producer(1, ("Invalid",)),
    "validateDeviceName": Producer(1, ("Invalid",)),
    "validateCounterName": Producer(1, ("Invalid",)),
    "corevalidation.ValidateDNS1123Label": Producer(1, ("Invalid",)),
    "validateDeviceClassName": Producer(1, ("Invalid",)),
    "corevalidation.ValidateDNS1123Subdomain": Producer(1, ("Invalid",)),
    "metav1validation.ValidateLabelName": Producer(1, ("Invalid",)),
    "validate.LongName": Producer(2, ("Invalid",)),
    "corevalidation.ValidateNodeSelector": Producer(2, ("Required", "Invalid")),
    "corevalidation.ValidateObjectMeta": Producer(3, ("Required", "Invalid", "TooLong")),
    "corevalidation.ValidateObjectMetaWithOpts": Producer(3, ("Required", "Invalid", "TooLong")),
    "corevalidation.ValidateTemplateObjectMeta": Producer(1, ("Forbidden", "Invalid", "TooLong")),
    "corevalidation.ValidateObjectMetaUpdate": Producer(2, ("Invalid",)),
    "apimachineryvalidation.ValidateImmutableField": Producer(2, ("Invalid",)),
    "metav1validation.ValidateConditions": Producer(1, ("Required", "Invalid", "TooLong", "NotSupported", "Duplicate")),
    "validation.IsValidInterfaceAddress": Producer(0, ("Invalid",)),
}

# Functions of validation.go whose own field.* calls are made on behalf of every caller:
# the caller's row (via PRODUCERS) is the one that names a rule.
GENERIC_HELPERS = frozenset({"validateSlice", "validateSet", "validateMap"})


@dataclass(frozen=True)
class Site:
    function: str
    error_type: str
    path: str
    line: int
    via: str = ""  # the helper that makes the error, when not a direct field.* call

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.function, self.error_type, self.path)

    def render(self) -> str:
        via = f" via {self.via}" if self.via else ""
        return f"{self.function}: {self.error_type} at {self.path}{via} (line {self.line})"


def blank_comments_and_strings(text: str) -> str:
    """`text` with comments removed and string contents kept verbatim but unable to fool bracket counting.

    Comments become spaces (newlines kept, so line numbers hold); a string's
    brackets are replaced by spaces, everything else in it is kept (paths name
    their fields in strings).
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if c != "`" and text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[(){}\[\]]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


_FUNC = re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", re.M)
_CALL = re.compile(r"(?<![\w.])((?:[a-z]\w*\.)?[A-Za-z_]\w*)\(")


def _arguments(text: str, open_paren: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose `(` is at `open_paren`, and the index after its `)`."""
    depth, start, args = 0, open_paren + 1, []
    i = open_paren
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return [re.sub(r"\s+", "", a) for a in args if a.strip()], i + 1
        elif c == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
        i += 1
    raise ValueError(f"unbalanced call at offset {open_paren}")


def functions(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of every top-level function of blanked Go source."""
    starts = [(m.group(1), m.start()) for m in _FUNC.finditer(text)]
    spans = []
    for k, (name, start) in enumerate(starts):
        end = starts[k + 1][1] if k + 1 < len(starts) else len(text)
        spans.append((name, start, end))
    return spans


def call_sites(source: str) -> list[Site]:
    """Every error call site of one Go file, in source order."""
    text = blank_comments_and_strings(source)
    sites: list[Site] = []
    for name, start, end in functions(text):
        body = text[start:end]
        for m in _CALL.finditer(body):
            callee = m.group(1)
            direct = callee.startswith("field.") and callee[6:] in ERROR_TYPES
            producer = PRODUCERS.get(callee)
            if not direct and producer is None:
                continue
            if not direct and body[: m.start()].rstrip().endswith("func"):
                continue  # the helper's own declaration
            at = start + m.start()
            line = text.count("\n", 0, at) + 1
            args, _ = _arguments(text, start + m.end() - 1)
            if direct:
                sites.append(Site(name, callee[6:], args[0] if args else "", line))
                continue
            path = args[producer.path_arg] if len(args) > producer.path_arg else ""
            types = producer.types
            if callee in ("validateSlice", "validateSet", "validateMap") and len(args) > 1 and args[1] == "-1":
                types = tuple(t for t in types if t != "TooMany")  # a negative maxSize: no size limit
            sites.extend(Site(name, t, path, line, via=callee) for t in types)
    return sites


def validation_files() -> dict[str, Path]:
    """release -> its validation.go, for each release whose file is in ../shared."""
    if not VALIDATION.is_dir():
        return {}
    found = {}
    for folder in sorted(VALIDATION.iterdir()):
        path = folder / VALIDATION_GO
        if path.is_file():
            found[folder.name] = path
    return found


def release_sites(release: str) -> list[Site]:
    path = validation_files().get(release)
    return call_sites(path.read_text(encoding="utf-8")) if path else []


_SEGMENT = re.compile(r'\.(Child|Index|Key)\(([^()]*)\)')


def path_suffix(expression: str) -> str | None:
    """A regular expression the end of an API path written as `expression` matches, or None when unknown.

    `fldPath.Child("a", "b").Index(i)` must end with `a.b[N]`; a bare variable
    (`fldPath`, `keyPath`) says nothing about the end.
    """
    parts: list[str] = []
    for kind, arg in _SEGMENT.findall(expression):
        if kind == "Child":
            # A literal name must match; an expression (`pair.name`) stands for any one field.
            parts += [re.escape(n.strip()[1:-1]) if n.strip().startswith('"') else r"[^.\[\]]+" for n in arg.split(",")]
            continue
        if kind == "Index":
            parts.append(r"\[\d+\]")
        else:
            parts.append(r"\[[^\]]*\]")
    if not parts:
        return None
    pattern = ""
    for part in parts:
        pattern += part if part.startswith(r"\[") or not pattern else r"\." + part
    return r"(^|\.)" + pattern + "$" if not parts[0].startswith(r"\[") else pattern + "$"

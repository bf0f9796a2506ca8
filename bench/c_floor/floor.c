/* The floor of a compiled loader, for bench/stages.py --floor only: never shipped, never imported by dralint.
 *
 * What a loader of dralint's own in C would cost at the least: libyaml's parser called from C (no Python event
 * objects), each document built as dict / list / str, plain scalars resolved as the YAML 1.2 core schema's
 * null, booleans and decimal integers (others stay str), a repeated key told, and an anchor, alias or tag told
 * (a real loader would hand such a document to the position-keeping loader). No positions are kept: dralint's
 * loader keeps those of the `positioned` keys only and finds the others by replaying the events when a problem
 * needs one. load(data: bytes) -> (documents: list, flags: int); flags bit 1: a repeated key, bit 2: an anchor,
 * alias or tag, bit 4: a syntax error (the documents before it are returned).
 *
 * sketch(data, words, number, positioned) -> (documents, flags, known, ends) goes a step towards a loader dralint
 * could use, still without its problems' texts: plain scalars resolved as dralint's loader resolves them (the
 * `words` dict, then `number(text)` for a text that starts like a number: dralint.pipeline.load.scalars), the
 * limits (flag 8), a key that is no string or is `<<` (flag 1), and, for each key in `positioned` whose value
 * is a scalar, (mapping, key, key line, key column, value line, value column, value end line, value end column)
 * in `known`, as the loader keeps their events; `ends`, each document's end line; `again`, the (start, end)
 * character offsets of each document flagged 1, 2 or 8, which today's loader would read again (a syntax error,
 * flag 4, sends the file from the document it is in).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <yaml.h>
#include <string.h>

#define MAX_DEPTH 512

static PyObject *resolve_plain(const char *s, size_t n) {
    if (n == 0 || (n == 1 && s[0] == '~') || (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4))))
        Py_RETURN_NONE;
    if ((n == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "True", 4) || !memcmp(s, "TRUE", 4))))
        Py_RETURN_TRUE;
    if ((n == 5 && (!memcmp(s, "false", 5) || !memcmp(s, "False", 5) || !memcmp(s, "FALSE", 5))))
        Py_RETURN_FALSE;
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i < n && n - i <= 18) {
        size_t j = i;
        while (j < n && s[j] >= '0' && s[j] <= '9') j++;
        if (j == n) {
            long long v = 0;
            for (j = i; j < n; j++) v = v * 10 + (s[j] - '0');
            return PyLong_FromLongLong(s[0] == '-' ? -v : v);
        }
    }
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "surrogatepass");
}

/* A collection's start (both loops): whether it carries an anchor, and its new dict or list on the stack;
 * -1 (a Python error set, nothing pushed) when there is no memory for it. */
static int open_collection(const yaml_event_t *ev, PyObject **stack, PyObject **keys, int *depth) {
    int mapping = ev->type == YAML_MAPPING_START_EVENT;
    stack[*depth] = mapping ? PyDict_New() : PyList_New(0);
    if (stack[*depth] == NULL) return -1;
    keys[*depth] = NULL;
    (*depth)++;
    return (mapping ? (void *)ev->data.mapping_start.anchor : (void *)ev->data.sequence_start.anchor) != NULL;
}

static PyObject *floor_load(PyObject *self, PyObject *arg) {
    char *buf;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(arg, &buf, &len) < 0) return NULL;
    yaml_parser_t parser;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&parser)) return PyErr_NoMemory();
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, (size_t)len);
    PyObject *docs = PyList_New(0);
    PyObject *stack[MAX_DEPTH];
    PyObject *keys[MAX_DEPTH];
    int depth = 0, flags = 0, done = 0;
    PyObject *root = NULL;
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) { flags |= 4; break; }
        PyObject *value = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_DOCUMENT_END_EVENT:
            if (root) { PyList_Append(docs, root); Py_CLEAR(root); }
            break;
        case YAML_SCALAR_EVENT:
            if (ev.data.scalar.anchor || (ev.data.scalar.tag && !ev.data.scalar.plain_implicit && !ev.data.scalar.quoted_implicit)) flags |= 2;
            value = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                ? resolve_plain((const char *)ev.data.scalar.value, ev.data.scalar.length)
                : PyUnicode_DecodeUTF8((const char *)ev.data.scalar.value, (Py_ssize_t)ev.data.scalar.length, "surrogatepass");
            if (value == NULL) done = 1;  /* the error is raised below */
            break;
        case YAML_ALIAS_EVENT: flags |= 2; value = Py_NewRef(Py_None); break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (depth >= MAX_DEPTH) { flags |= 4; done = 1; break; }
            int opened = open_collection(&ev, stack, keys, &depth);
            if (opened < 0) done = 1;
            else if (opened) flags |= 2;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            value = stack[--depth];
            break;
        default: break;
        }
        yaml_event_delete(&ev);
        if (value == NULL) continue;
        if (depth == 0) { Py_XSETREF(root, value); continue; }
        PyObject *top = stack[depth - 1];
        if (PyDict_CheckExact(top)) {
            if (keys[depth - 1] == NULL) { keys[depth - 1] = value; continue; }
            PyObject *key = keys[depth - 1];
            keys[depth - 1] = NULL;
            Py_ssize_t before = PyDict_GET_SIZE(top);
            if (PyDict_SetItem(top, key, value) < 0) { PyErr_Clear(); flags |= 1; }  /* an unhashable key */
            else if (PyDict_GET_SIZE(top) == before) flags |= 1;
            Py_DECREF(key);
        } else {
            PyList_Append(top, value);
        }
        Py_DECREF(value);
    }
    while (depth > 0) { depth--; Py_XDECREF(keys[depth]); Py_DECREF(stack[depth]); }
    Py_XDECREF(root);
    yaml_parser_delete(&parser);
    if (PyErr_Occurred()) { Py_DECREF(docs); return NULL; }  /* no memory, or text that is not UTF-8 */
    return Py_BuildValue("(Ni)", docs, flags);
}

#define SKETCH_MAX_DEPTH 100
#define SKETCH_MAX_NODES 100000

static PyObject *sketch_scalar(yaml_event_t *ev, PyObject *words, PyObject *number) {
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    PyObject *text = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "surrogatepass");
    if (text == NULL || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return text;
    PyObject *word = PyDict_GetItemWithError(words, text);
    if (word != NULL) { Py_DECREF(text); return Py_NewRef(word); }
    if (PyErr_Occurred()) { Py_DECREF(text); return NULL; }
    if (n && strchr("0123456789+-.", s[0])) {
        PyObject *value = PyObject_CallOneArg(number, text);
        Py_DECREF(text);
        return value;
    }
    return text;
}

static PyObject *sketch_load(PyObject *self, PyObject *args) {
    Py_buffer data;
    PyObject *words, *number, *positioned;
    if (!PyArg_ParseTuple(args, "y*O!OO", &data, &PyDict_Type, &words, &number, &positioned)) return NULL;
    yaml_parser_t parser;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&parser)) { PyBuffer_Release(&data); return PyErr_NoMemory(); }
    yaml_parser_set_input_string(&parser, (const unsigned char *)data.buf, (size_t)data.len);
    PyObject *docs = PyList_New(0), *known = PyList_New(0), *ends = PyList_New(0);
    PyObject *stack[SKETCH_MAX_DEPTH + 1];
    PyObject *keys[SKETCH_MAX_DEPTH + 1];
    yaml_mark_t key_marks[SKETCH_MAX_DEPTH + 1];
    PyObject *again = PyList_New(0);
    int depth = 0, flags = 0, done = 0, doc_flags = 0, over = 0;  /* over: past a limit in this document */
    long nodes = 0;
    size_t doc_start = 0;
    PyObject *root = NULL;
    while (!done) {
        if (over) {  /* past a limit: the rest of the document is skipped, as the loader skips it */
            while (depth > 0) { depth--; Py_CLEAR(keys[depth]); Py_DECREF(stack[depth]); }
            Py_CLEAR(root);
            over = 0;
            doc_flags |= 8;
            int skipping = 1;
            while (skipping) {
                if (!yaml_parser_parse(&parser, &ev)) { flags |= 4; done = 1; break; }
                if (ev.type == YAML_DOCUMENT_END_EVENT || ev.type == YAML_STREAM_END_EVENT || ev.type == YAML_NO_EVENT) { skipping = 0; continue; }
                yaml_event_delete(&ev);
            }
            if (done) break;
        } else if (!yaml_parser_parse(&parser, &ev)) { flags |= 4; break; }
        PyObject *value = NULL;
        int scalar = 0;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_DOCUMENT_START_EVENT: nodes = 0; doc_flags = 0; doc_start = ev.start_mark.index; break;
        case YAML_DOCUMENT_END_EVENT:
            if (root) { PyList_Append(docs, root); Py_CLEAR(root); }
            if (doc_flags) {
                PyObject *span = Py_BuildValue("(nn)", (Py_ssize_t)doc_start, (Py_ssize_t)ev.end_mark.index);
                PyList_Append(again, span);
                Py_DECREF(span);
                flags |= doc_flags;
            }
            PyObject *end = PyLong_FromSize_t(ev.end_mark.line);
            PyList_Append(ends, end);
            Py_DECREF(end);
            break;
        case YAML_SCALAR_EVENT:
            if (++nodes > SKETCH_MAX_NODES) { over = 1; break; }
            if (ev.data.scalar.anchor || (ev.data.scalar.tag && !ev.data.scalar.plain_implicit && !ev.data.scalar.quoted_implicit)) doc_flags |= 2;
            value = sketch_scalar(&ev, words, number);
            if (value == NULL) { yaml_event_delete(&ev); goto fail; }
            scalar = 1;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT: value = stack[--depth]; break;
        case YAML_ALIAS_EVENT: doc_flags |= 2; value = Py_NewRef(Py_None); break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (depth >= SKETCH_MAX_DEPTH || ++nodes > SKETCH_MAX_NODES) over = 1;
            else {
                int opened = open_collection(&ev, stack, keys, &depth);
                if (opened < 0) { yaml_event_delete(&ev); goto fail; }
                if (opened) doc_flags |= 2;
            }
            break;
        default: break;
        }
        if (value == NULL) { yaml_event_delete(&ev); continue; }
        if (depth == 0) { Py_XSETREF(root, value); yaml_event_delete(&ev); continue; }
        PyObject *top = stack[depth - 1];
        if (PyDict_CheckExact(top)) {
            if (keys[depth - 1] == NULL) {
                if (!PyUnicode_CheckExact(value) || (scalar && ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                        && ev.data.scalar.length == 2 && !memcmp(ev.data.scalar.value, "<<", 2))) doc_flags |= 1;
                keys[depth - 1] = value;
                key_marks[depth - 1] = ev.start_mark;
                yaml_event_delete(&ev);
                continue;
            }
            PyObject *key = keys[depth - 1];
            keys[depth - 1] = NULL;
            Py_ssize_t before = PyDict_GET_SIZE(top);
            if (PyDict_SetItem(top, key, value) < 0) { PyErr_Clear(); doc_flags |= 1; }
            else if (PyDict_GET_SIZE(top) == before) doc_flags |= 1;
            if (scalar && PySet_Contains(positioned, key) == 1) {
                yaml_mark_t k = key_marks[depth - 1];
                PyObject *entry = Py_BuildValue("(OOnnnnnn)", top, key, (Py_ssize_t)k.line, (Py_ssize_t)k.column,
                    (Py_ssize_t)ev.start_mark.line, (Py_ssize_t)ev.start_mark.column, (Py_ssize_t)ev.end_mark.line, (Py_ssize_t)ev.end_mark.column);
                PyList_Append(known, entry);
                Py_DECREF(entry);
            }
            Py_DECREF(key);
        } else {
            PyList_Append(top, value);
        }
        Py_DECREF(value);
        yaml_event_delete(&ev);
    }
    while (depth > 0) { depth--; Py_XDECREF(keys[depth]); Py_DECREF(stack[depth]); }
    Py_XDECREF(root);
    yaml_parser_delete(&parser);
    PyBuffer_Release(&data);
    return Py_BuildValue("(NiNNN)", docs, flags, known, ends, again);
fail:
    while (depth > 0) { depth--; Py_XDECREF(keys[depth]); Py_DECREF(stack[depth]); }
    Py_XDECREF(root);
    Py_DECREF(docs); Py_DECREF(known); Py_DECREF(ends); Py_DECREF(again);
    yaml_parser_delete(&parser);
    PyBuffer_Release(&data);
    return NULL;
}

static PyMethodDef methods[] = {{"load", floor_load, METH_O, "dict/list/str of each document, and flags"},
                                {"sketch", sketch_load, METH_VARARGS, "a step towards a usable loader (see above)"},
                                {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dralint_c_floor", NULL, -1, methods};
PyMODINIT_FUNC PyInit__dralint_c_floor(void) { return PyModule_Create(&module); }

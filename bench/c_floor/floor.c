/* The floor of a compiled loader, for bench/stages.py --floor only: never shipped, never imported by dralint.
 *
 * What a loader of dralint's own in C would cost at the least: libyaml's parser called from C (no Python event
 * objects), each document built as dict / list / str, plain scalars resolved as the YAML 1.2 core schema's
 * null, booleans and decimal integers (others stay str), a repeated key told, and an anchor, alias or tag told
 * (a real loader would hand such a document to the position-keeping loader). No positions are kept: dralint's
 * loader keeps those of the `positioned` keys only and finds the others by replaying the events when a problem
 * needs one. load(data: bytes) -> (documents: list, flags: int); flags bit 1: a repeated key, bit 2: an anchor,
 * alias or tag, bit 4: a syntax error (the documents before it are returned).
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
            break;
        case YAML_ALIAS_EVENT: flags |= 2; value = Py_NewRef(Py_None); break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (depth >= MAX_DEPTH) { flags |= 4; done = 1; break; }
            if ((ev.type == YAML_MAPPING_START_EVENT ? (void *)ev.data.mapping_start.anchor : (void *)ev.data.sequence_start.anchor)) flags |= 2;
            stack[depth] = ev.type == YAML_MAPPING_START_EVENT ? PyDict_New() : PyList_New(0);
            keys[depth] = NULL;
            depth++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            value = stack[depth];
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
    return Py_BuildValue("(Ni)", docs, flags);
}

static PyMethodDef methods[] = {{"load", floor_load, METH_O, "dict/list/str of each document, and flags"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dralint_c_floor", NULL, -1, methods};
PyMODINIT_FUNC PyInit__dralint_c_floor(void) { return PyModule_Create(&module); }

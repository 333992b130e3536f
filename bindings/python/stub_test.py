"""The type stubs (tessera/__init__.pyi, shipped with py.typed) against the package:
every name, class member and function parameter they declare exists at run time,
and every public name the idiomatic modules define is declared, so editors
complete what is there and nothing else."""

import ast
import inspect
import os
import unittest

import tessera as ts

PACKAGE = os.path.dirname(os.path.abspath(ts.__file__))

# Stub-only helpers (type aliases, the shared handle base class).
STUB_ONLY = {"_T", "_Shape", "_DType", "_PlacementLike", "_SbpLike", "_Number",
             "_TensorOrNumber", "_Handle", "_Sbp", "__getattr__"}


def stub_tree():
    """__init__.pyi after the generated _ops_generated.pyi it star-imports, so that its
    own declarations win."""
    body = []
    for name in ("_ops_generated.pyi", "__init__.pyi"):
        with open(os.path.join(PACKAGE, name)) as f:
            body += ast.parse(f.read()).body
    return ast.Module(body=body, type_ignores=[])


def declared(tree):
    """{name: node} of the stub's top-level declarations."""
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names[target.id] = node
    return names


class StubTest(unittest.TestCase):
    def setUp(self):
        self.names = declared(stub_tree())

    def test_files_ship(self):
        self.assertTrue(os.path.exists(os.path.join(PACKAGE, "py.typed")))

    def test_declared_names_exist(self):
        for name in self.names:
            if name in STUB_ONLY:
                continue
            self.assertTrue(hasattr(ts, name), "the stub declares tessera.%s" % name)

    def test_class_members_exist(self):
        for name, node in self.names.items():
            if not isinstance(node, ast.ClassDef) or name in STUB_ONLY:
                continue
            cls = getattr(ts, name)
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and issubclass(cls, BaseException):
                    continue  # set by __init__: instance attributes
                member = getattr(item, "name", None) or getattr(
                    getattr(item, "target", None), "id", None)
                if member is None or member == "__init__" and not hasattr(cls, "__init__"):
                    continue
                self.assertTrue(hasattr(cls, member), "the stub declares %s.%s" % (name, member))

    def test_function_parameters_match(self):
        for name, node in self.names.items():
            if not isinstance(node, ast.FunctionDef) or name in STUB_ONLY:
                continue
            fn = getattr(ts, name)
            try:
                sig = inspect.signature(fn)
            except (TypeError, ValueError):
                continue
            stub = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
            real = [p for p in sig.parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            # SWIG's raw functions take *args; the idiomatic ones must match by name.
            if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()) and not real:
                continue
            self.assertEqual(stub, [p.name for p in real], "parameters of tessera.%s" % name)

    def test_public_names_declared(self):
        modules = [getattr(ts, m) for m in ("_errors", "_runtime", "_placement", "_infer",
                                             "_tensor", "_dlpack", "_ops", "_ops_generated", "_collectives",
                                             "_plan", "_memory", "_autograd",
                                             "_checkpoint")]
        for module in modules:
            for name, value in vars(module).items():
                if name.startswith("_") or getattr(ts, name, None) is not value:
                    continue  # helpers the package does not export
                if inspect.ismodule(value):
                    continue
                self.assertTrue(name in self.names, "tessera.%s (from %s) is not in the stub"
                                % (name, module.__name__))


if __name__ == "__main__":
    unittest.main()

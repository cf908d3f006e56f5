# docs/conf.py: Sphinx configuration of the documentation site (scripts/build_docs.sh builds it).
"""The site is the Markdown pages under docs/ (read by myst-parser), the gallery's pictures from
examples/images/, CHANGELOG.md, and api.rst, the API reference, which autodoc fills from the imported
`quadrants` package (the one installed in the Python that runs Sphinx). A public name whose docstring is empty is reported as a warning, so a build with
warnings as errors (-W) fails until every name has one (tests/python/test_docs.py)."""
import inspect

from sphinx.util import logging

project = "quadrants"
author = "quadrants contributors"
extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# Pages under docs/ that are not part of the site: notes for developers with their own audience.
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_title = "quadrants"
default_role = "code"  # docstrings write `name` for code, as Markdown does
myst_heading_anchors = 3  # the guide links to its own sections by anchor
suppress_warnings = ["myst.header"]  # pages start at '#', and some skip a level on purpose
autodoc_typehints = "none"  # signatures as written; typehints in descriptions would need every type importable
autodoc_inherit_docstrings = False  # a class without its own docstring must not borrow object's

logger = logging.getLogger("quadrants.docs")


def warn_missing_docstring(app, what, name, obj, options, lines):
    """A public name whose docstring is empty is a warning naming it: -W turns it into an error. A function
    that is an instance of a callable class and carries only that class's docstring (the kernel built-ins)
    has none of its own, so it counts as missing. Values of built-in types (log level strings, axis lists)
    cannot carry one: api.rst describes them itself."""
    if what == "data" and type(obj).__module__ == "builtins":
        return
    inherited = what == "function" and not isinstance(obj, type) and not inspect.isroutine(obj) and \
        getattr(obj, "__doc__", None) == getattr(type(obj), "__doc__", None)
    if inherited or not any(line.strip() for line in lines):
        lines[:] = []
        logger.warning(f"missing docstring: {name}", type="quadrants", subtype="docstring")


def setup(app):
    app.connect("autodoc-process-docstring", warn_missing_docstring)

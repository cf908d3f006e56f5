# python/quadrants/lang/ast/ast_transformers/graph_api.py: upstream's import path for the qd.graph spelling checks.
#
# Programs and upstream's tests import matches / is_deprecated_spelling / warn_if_deprecated from here; they
# live in frontend/graph_spelling.py.
from quadrants.frontend.graph_spelling import is_deprecated_spelling, matches, warn_if_deprecated  # noqa: F401

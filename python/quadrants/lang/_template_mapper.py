# python/quadrants/lang/_template_mapper.py: an empty module under upstream's name, for compatibility only.
#
# Genesis writes `qd.lang._template_mapper.__builtins__["__debug__"]` after qd.init() to switch
# upstream's debug checks; here that write lands in Python's builtins and has no effect on kernels,
# whose checks follow qd.init(debug=...).

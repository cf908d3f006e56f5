# python/quadrants/_test_tools/textwrap2.py: upstream's test helper quadrants._test_tools.textwrap2.
def dedent(indent_size, text):
    """`text` with the first `indent_size` characters of every line cut (textwrap.dedent keeps an indentation
    that every line shares, which a method's source lines do)."""
    return "\n".join(line[indent_size:] for line in text.split("\n"))

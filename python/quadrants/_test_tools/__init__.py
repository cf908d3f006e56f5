# python/quadrants/_test_tools/__init__.py: helpers upstream ships in its package for its own tests,
# which import them as quadrants._test_tools.<module>.

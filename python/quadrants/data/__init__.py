# python/quadrants/data/__init__.py: the data floor: vector/matrix/struct values, containers, ndarrays, SNodes and fields.

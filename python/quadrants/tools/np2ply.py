# python/quadrants/tools/np2ply.py: qd.tools.PLYWriter: writes point clouds and meshes held in numpy arrays to PLY
# files (binary in the host's byte order, or ASCII), with upstream's channel names and file layout.
import sys

import numpy as np

# PLY's scalar types and the numpy types they are written as.
_PLY_TYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32,
              "uint": np.uint32, "float": np.float32, "double": np.float64}


class _Element:
    """The named scalar channels of one PLY element (vertex or face), each an array of `count` values."""

    def __init__(self, what, count):
        self.what, self.count = what, count
        self.names, self.types, self.columns = [], [], []

    def add(self, key, data_type, data):
        if data_type not in _PLY_TYPES:
            print(f"Unknown type {data_type} detected, skipping this channel")  # upstream's behaviour and words
            return
        data = np.asarray(data)
        if data.ndim == 1:
            if data.size != self.count:
                raise ValueError(f"The {self.what} channel '{key}' has {data.size} values, but there are "
                                 f"{self.count} {self.what}s.")
            columns = [(key, data)]
        else:
            if data.ndim != 2 or data.shape[0] != self.count:
                raise ValueError(f"The {self.what} channel '{key}' must have shape ({self.count},) or "
                                 f"({self.count}, k), but got {data.shape}.")
            columns = [(f"{key}_{k + 1}", data[:, k]) for k in range(data.shape[1])]
        for name, column in columns:
            if name in self.names:
                print(f"WARNING: duplicate key {name} detected")
            self.names.append(name)
            self.types.append(data_type)
            self.columns.append(column.astype(_PLY_TYPES[data_type]))

    def header(self):
        return "".join(f"property {t} {n}\n" for t, n in zip(self.types, self.names))

    def records(self, prefix=()):
        """The element's rows as one numpy structured array: `prefix` fields (name, dtype, values) first."""
        fields = list(prefix) + [(n, _PLY_TYPES[t], c) for n, t, c in zip(self.names, self.types, self.columns)]
        rows = np.empty(self.count, dtype=[(f"f{k}", dtype, np.shape(v)[1:]) for k, (_, dtype, v) in
                                          enumerate(fields)])
        for k, (_, _, values) in enumerate(fields):
            rows[f"f{k}"] = values
        return rows


class PLYWriter:
    """Writes numpy data to a PLY file: num_vertices vertices and num_faces faces of face_type 'tri' or 'quad'.

    Add channels with add_vertex_pos/normal/vel/color/alpha/rgba/id/piece, add_vertex_channel, add_faces and
    add_face_channel, then export(path) (binary) or export_ascii(path).
    """

    def __init__(self, num_vertices: int, num_faces=0, face_type="tri", comment="created by PLYWriter"):
        if not isinstance(num_vertices, (int, np.integer)) or num_vertices <= 0:
            raise ValueError(f"PLYWriter(num_vertices=...) must be a positive int, but got {num_vertices!r}.")
        if not isinstance(num_faces, (int, np.integer)) or num_faces < 0:
            raise ValueError(f"PLYWriter(num_faces=...) must be a non-negative int, but got {num_faces!r}.")
        if face_type not in ("tri", "quad"):
            raise ValueError(f"PLYWriter(face_type=...) must be 'tri' or 'quad', but got {face_type!r}.")
        self.num_vertices, self.num_faces, self.face_type, self.comment = num_vertices, num_faces, face_type, comment
        self._vertices = _Element("vertex", num_vertices)
        self._faces = _Element("face", num_faces)
        self.face_indices = -np.ones((num_faces, self._corners()), dtype=np.int32)

    def _corners(self):
        return 3 if self.face_type == "tri" else 4

    def add_vertex_channel(self, key: str, data_type: str, data: np.ndarray):
        """A vertex property `key` of PLY type data_type ('float', 'int', ...); a (n, k) array adds key_1..key_k."""
        self._vertices.add(key, data_type, data)

    def add_vertex_pos(self, x, y, z):
        for key, values in (("x", x), ("y", y), ("z", z)):
            self.add_vertex_channel(key, "float", values)

    def add_vertex_normal(self, nx, ny, nz):
        for key, values in (("nx", nx), ("ny", ny), ("nz", nz)):
            self.add_vertex_channel(key, "float", values)

    def add_vertex_vel(self, vx, vy, vz):
        for key, values in (("vx", vx), ("vy", vy), ("vz", vz)):
            self.add_vertex_channel(key, "float", values)

    def add_vertex_color(self, r, g, b):
        for key, values in (("red", r), ("green", g), ("blue", b)):
            self.add_vertex_channel(key, "float", values)

    def add_vertex_alpha(self, alpha):
        self.add_vertex_channel("Alpha", "float", alpha)

    def add_vertex_rgba(self, r, g, b, a):
        self.add_vertex_color(r, g, b)
        self.add_vertex_alpha(a)

    def add_vertex_id(self):
        self.add_vertex_channel("id", "int", np.arange(self.num_vertices))

    def add_vertex_piece(self, piece):
        self.add_vertex_channel("piece", "int", piece)

    def add_faces(self, indices):
        """The faces' vertex indices: num_faces * 3 (tri) or * 4 (quad) values, in any shape."""
        indices = np.asarray(indices)
        if indices.size != self.num_faces * self._corners():
            raise ValueError(f"add_faces() needs {self.num_faces * self._corners()} vertex indices ({self.num_faces} "
                             f"{self.face_type} faces), but got {indices.size}.")
        self.face_indices = indices.reshape(self.num_faces, self._corners()).astype(np.int32)

    def add_face_channel(self, key: str, data_type: str, data: np.ndarray):
        self._faces.add(key, data_type, data)

    def add_face_id(self):
        self.add_face_channel("id", "int", np.arange(self.num_faces))

    def add_face_piece(self, piece):
        self.add_face_channel("piece", "int", piece)

    def sanity_check(self):
        missing = [axis for axis in "xyz" if axis not in self._vertices.names]
        if missing:
            raise ValueError(f"The vertex position channel {missing[0]!r} is missing; call add_vertex_pos().")
        if self.num_faces and ((self.face_indices < 0) | (self.face_indices >= self.num_vertices)).any():
            raise ValueError(f"The face indices are invalid: each must be in [0, {self.num_vertices}); call "
                             "add_faces() with the faces' vertex indices.")

    def _header(self, file_format):
        text = f"ply\nformat {file_format} 1.0\ncomment {self.comment}\nelement vertex {self.num_vertices}\n"
        text += self._vertices.header()
        if self.num_faces:
            text += f"element face {self.num_faces}\nproperty list uchar int vertex_indices\n" + self._faces.header()
        return text + "end_header\n"

    def export(self, path):
        """Writes the binary PLY file, in the host's byte order."""
        self.sanity_check()
        with open(path, "wb") as f:
            f.write(self._header(f"binary_{sys.byteorder}_endian").encode())
            f.write(self._vertices.records().tobytes())
            if self.num_faces:
                corners = np.full(self.num_faces, self._corners(), np.uint8)
                f.write(self._faces.records([("n", np.uint8, corners), ("v", np.int32, self.face_indices)]).tobytes())

    def export_ascii(self, path):
        """Writes the ASCII PLY file."""
        self.sanity_check()
        with open(path, "w") as f:
            f.write(self._header("ascii"))
            for i in range(self.num_vertices):
                f.write("".join(f"{column[i]} " for column in self._vertices.columns) + "\n")
            for i in range(self.num_faces):
                row = [str(self._corners()), " ".join(map(str, self.face_indices[i])), ""]
                f.write(" ".join(row) + "".join(f"{column[i]} " for column in self._faces.columns) + "\n")

    def export_frame(self, series_num: int, path: str):
        """export() to `path` (without .ply) + _NNNNNN.ply, for a series of frames."""
        self.export(_frame_path(series_num, path))

    def export_frame_ascii(self, series_num: int, path: str):
        self.export_ascii(_frame_path(series_num, path))


def _frame_path(series_num, path):
    return path.removesuffix(".ply") + f"_{series_num:06d}.ply"


__all__ = ["PLYWriter"]

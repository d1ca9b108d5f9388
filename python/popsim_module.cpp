// SPDX-License-Identifier: BSD-3-Clause
// The compiled half of the Python module: the library's calls with the GIL released, their tables
// as Python dicts and lists; popsim/__init__.py makes pandas tables of them.
#include "popsim/popsim.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

const char* kind_name(popsim::Error::Kind kind) {
    switch (kind) {
    case popsim::Error::Kind::usage:
        return "usage";
    case popsim::Error::Kind::bad_input:
        return "bad_input";
    case popsim::Error::Kind::failure:
        return "failure";
    }
    return "failure";
}

/// Text for Python: what comes from a trace or a file name may hold bytes that are not UTF-8
/// (pybind11's conversion would raise UnicodeDecodeError); they become U+FFFD.
py::str text(const std::string& s) {
    PyObject* decoded =
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    if (decoded == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(decoded);
}

py::list texts(const std::vector<std::string>& strings) {
    py::list out;
    for (const auto& s : strings) out.append(text(s));
    return out;
}

py::list metric_rows(const std::vector<popsim::Metric>& metrics) {
    py::list rows;
    for (const auto& m : metrics) {
        rows.append(py::dict(py::arg("key") = text(m.key), py::arg("label") = text(m.label),
                             py::arg("level") = m.level, py::arg("unit") = text(m.unit),
                             py::arg("values") = m.values));
    }
    return rows;
}

py::dict analyze(const std::vector<std::string>& traces, const popsim::Options& options) {
    const popsim::Analysis a = [&] {
        const py::gil_scoped_release release;
        return popsim::analyze(traces, options);
    }();
    const auto& t = a.table;
    return py::dict(
        py::arg("model") = text(t.model), py::arg("description") = text(t.description),
        py::arg("column_title") = text(t.column_title), py::arg("columns") = texts(t.columns),
        py::arg("metrics") = metric_rows(t.metrics), py::arg("raw") = metric_rows(t.raw),
        py::arg("html") = text(t.html), py::arg("json") = text(a.json));
}

/// simulate and whatif return their JSON report.
template <auto command> py::str report(const std::string& trace, const popsim::Options& options) {
    const std::string json = [&] {
        const py::gil_scoped_release release;
        return command(trace, options);
    }();
    return text(json);
}

} // namespace

PYBIND11_MODULE(_popsim, m) {
    m.doc() = "popsim's library calls; use the popsim package, which makes pandas tables of them";
    // Raised with (kind, message); popsim.Error is what users catch.
    static const py::exception<popsim::Error> error(m, "Error");
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const popsim::Error& e) {
            PyErr_SetObject(error.ptr(), py::make_tuple(kind_name(e.kind()), text(e.what())).ptr());
        }
    });
    m.def("version", &popsim::version);
    m.def("analyze", &analyze, py::arg("traces"), py::arg("options"));
    m.def("simulate", &report<&popsim::simulate>, py::arg("trace"), py::arg("options"));
    m.def("whatif", &report<&popsim::whatif>, py::arg("trace"), py::arg("options"));
}

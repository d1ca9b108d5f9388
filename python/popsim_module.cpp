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

py::list metric_rows(const std::vector<popsim::Metric>& metrics) {
    py::list rows;
    for (const auto& m : metrics) {
        rows.append(py::dict(py::arg("key") = m.key, py::arg("label") = m.label,
                             py::arg("level") = m.level, py::arg("unit") = m.unit,
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
    return py::dict(py::arg("model") = t.model, py::arg("description") = t.description,
                    py::arg("column_title") = t.column_title, py::arg("columns") = t.columns,
                    py::arg("metrics") = metric_rows(t.metrics),
                    py::arg("raw") = metric_rows(t.raw), py::arg("html") = t.html,
                    py::arg("json") = a.json);
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
            PyErr_SetObject(error.ptr(), py::make_tuple(kind_name(e.kind()), e.what()).ptr());
        }
    });
    m.def("version", &popsim::version);
    m.def("analyze", &analyze, py::arg("traces"), py::arg("options"));
    m.def("simulate", &popsim::simulate, py::arg("trace"), py::arg("options"),
          py::call_guard<py::gil_scoped_release>());
    m.def("whatif", &popsim::whatif, py::arg("trace"), py::arg("options"),
          py::call_guard<py::gil_scoped_release>());
}

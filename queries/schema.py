"""Moved: the record types of a dataset are defined in :mod:`records.dataset`
(issue 11). This name stays so existing imports keep working."""

from records.dataset import (  # noqa: F401
    APIS_FILE,
    MANIFEST_FILE,
    PROJECTS_FILE,
    SAMPLES_FILE,
    ApiRecord,
    ParamDoc,
    SampleRecord,
    SchemaError,
    TargetRecord,
    ThrowsDoc,
)

__all__ = ["SchemaError", "TargetRecord", "SampleRecord", "ApiRecord", "ParamDoc", "ThrowsDoc",
           "SAMPLES_FILE", "APIS_FILE", "PROJECTS_FILE", "MANIFEST_FILE"]

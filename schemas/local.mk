# schemas/: the YAML description of the format, installed in $(pkgdatadir).
dist_pkgdata_DATA += schemas/picl.yaml
dist_man_MANS += man/picl-schema.5
# its tests: the man page's example, hostile user schemas
SCHEMA_E2E = t/e2e/0950-schema-man-example.sh t/e2e/0951-schema-hostile.sh \
	t/e2e/0972-schema-only-adds.sh t/e2e/0975-schema-categories.sh
TESTS += $(SCHEMA_E2E)
EXTRA_DIST += $(SCHEMA_E2E)

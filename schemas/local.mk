# schemas/: the YAML description of the format, installed in $(pkgdatadir).
dist_pkgdata_DATA += schemas/picl.yaml
dist_man_MANS += man/picl-schema.5
# The page names the schema where the default prefix puts it; the
# installed copy names where this one does.
install-data-hook:
	@f='$(DESTDIR)$(man5dir)/picl-schema.5'; \
	if test -f "$$f" && test '$(pkgdatadir)' != /usr/local/share/picl-trace; then \
	  echo " sed $(pkgdatadir) into $$f"; \
	  sed -e 's|/usr/local/share/picl-trace|$(pkgdatadir)|g' "$$f" >"$$f.tmp" && \
	  mv -f "$$f.tmp" "$$f"; \
	fi
# its tests: the man page's example, hostile user schemas
SCHEMA_E2E = t/e2e/0950-schema-man-example.sh t/e2e/0951-schema-hostile.sh \
	t/e2e/0972-schema-only-adds.sh t/e2e/0975-schema-categories.sh \
	t/e2e/0407-schema-tabs.sh
TESTS += $(SCHEMA_E2E)
EXTRA_DIST += $(SCHEMA_E2E)

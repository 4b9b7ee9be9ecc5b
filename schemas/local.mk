# schemas/: the YAML description of the format, installed in $(pkgdatadir).
dist_pkgdata_DATA += schemas/picl.yaml
dist_man_MANS += man/picl-schema.5

// api.h - the API layer.

"""Query functions, one module per resource. SQL lives here and nowhere else; callers get
plain objects (novalite.objects) or dicts, never ORM rows."""

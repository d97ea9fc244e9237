// The PostgreSQL driver (DatabaseServerDriver on postgres-nio) lands here.

-- The schema registry's own database (docker-compose.yml): Apicurio keeps every schema and its
-- id here, so a registry restart never loses the writer schema of a record already on a topic.
-- Runs once, when the PostgreSQL volume is first initialised.
CREATE DATABASE schema_registry OWNER settle;

use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", stream = "everything", tags = ["team", "=x", "env=prod"])]
struct Music;

#[derive(Table)]
#[table(name = "Other", pk = "pk", deletion_protection, deletion_protection)]
struct Other;

fn main() {}

"""Australian Rainfall and Runoff 2019 design inputs, read from the files engineers download (the Bureau's IFD
depths table, the ARR Data Hub's temporal-pattern increments and its text output), and the design storm built from
them. No Django: the studies app calls these and maps `ArrFileError` to a platform error.
May import: errors, inputs."""

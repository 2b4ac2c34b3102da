"""Files in and out: the one opener and the one writer, paths kept in their root, downloads, picture headers."""

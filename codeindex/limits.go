package codeindex

// maxFileSize: larger files are skipped (and counted).
const maxFileSize = 1 << 20

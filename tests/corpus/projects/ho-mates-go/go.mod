module example.com/books

go 1.19

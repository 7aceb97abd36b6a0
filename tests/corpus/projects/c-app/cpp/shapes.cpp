#include <string>
#include <vector>

struct Shape {
	std::string name;
	double area;
};

double total_area(const std::vector<Shape> &shapes)
{
	double total = 0;
	for (const auto &s : shapes)
		total += s.area;
	return total;
}

int main()
{
	std::vector<Shape> shapes;
	shapes.push_back("square");
	return total_area(shapes, 2) > 0;
}

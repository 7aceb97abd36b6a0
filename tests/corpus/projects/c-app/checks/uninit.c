int pick(int flag)
{
	int value;
	if (flag)
		value = 1;
	return value + 1;
}

int sum3(void)
{
	int a;
	return a + 3;
}

#define NB 4
#define RS 16
#define BS NB*RS
#define SB 16
#define SR BS/SB
#define SQ SB/BS

void f(int s[SR], int o[SR], int p[64])
{
  int i;
  for (i = 0; i < SR; i++)
    o[i] = s[i] + 1;
  for (i = 0; i < SQ; i++)
    p[i] = 0;
}

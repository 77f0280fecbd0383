import { BarChart } from '@mui/x-charts/BarChart';

interface Props {
  days: string[];
  series: { model: string; data: number[] }[];
  valueFormatter: (v: number | null) => string;
  tickFormatter: (v: number) => string;
}

/** The last seven days stacked by model: bars, so no line invents a ramp between days. */
export default function WeekChart({ days, series, valueFormatter, tickFormatter }: Props) {
  return (
    <BarChart
      height={300}
      xAxis={[{ scaleType: 'band', data: days.map((d) => d.slice(5)) }]}
      series={series.map((s) => ({ label: s.model, data: s.data, stack: 'models', valueFormatter }))}
      yAxis={[{ valueFormatter: tickFormatter, width: 80 }]}
    />
  );
}
